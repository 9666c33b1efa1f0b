/// Splits a filter expression into tokens; bounded by the expression's length and
/// `FilterExpression.maxLiteralBytes` per literal.
struct FilterLexer {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// Every token, ending with `.end`.
    static func tokens(_ text: String) throws(FilterError) -> [FilterToken] {
        var lexer = FilterLexer(text)
        var tokens: [FilterToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private static let twoByteSymbols: Set<String> = ["==", "!=", ">=", "<=", "&&", "||"]
    private static let oneByteSymbols: Set<UInt8> = Set("()[].!<>+-*/%,".utf8)

    private mutating func next() throws(FilterError) -> FilterToken {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        let start = index
        guard index < bytes.count else { return FilterToken(kind: .end, offset: start) }
        let byte = bytes[index]
        if index + 1 < bytes.count {
            let pair = String(decoding: bytes[index...index + 1], as: UTF8.self)
            if Self.twoByteSymbols.contains(pair) {
                index += 2
                return FilterToken(kind: .symbol(pair), offset: start)
            }
        }
        if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
            return FilterToken(kind: .string(try string(quote: byte)), offset: start)
        }
        if (0x30...0x39).contains(byte) { return FilterToken(kind: .number(try number()), offset: start) }
        if Self.isIdentifierStart(byte) {
            while index < bytes.count, Self.isIdentifierByte(bytes[index]) { index += 1 }
            guard index - start <= FilterExpression.maxLiteralBytes else { throw FilterError("identifier too long") }
            return FilterToken(kind: .identifier(String(decoding: bytes[start..<index], as: UTF8.self)), offset: start)
        }
        if Self.oneByteSymbols.contains(byte) {
            index += 1
            return FilterToken(kind: .symbol(String(UnicodeScalar(byte))), offset: start)
        }
        if byte == UInt8(ascii: "=") { throw FilterError("single '=' at offset \(start): use '=='") }
        throw FilterError("unexpected character at offset \(start)")
    }

    /// A quoted literal; `\'`, `\"`, `\\`, `\n`, `\t`, `\r`, `\/` and `\uXXXX` are unescaped, any
    /// other escape (`\*` for LIKE) is kept as written.
    private mutating func string(quote: UInt8) throws(FilterError) -> String {
        let start = index
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == quote { return String(decoding: out, as: UTF8.self) }
            if byte == UInt8(ascii: "\\"), index < bytes.count {
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "u"): out.append(contentsOf: try unicodeEscape())
                default: out.append(contentsOf: [UInt8(ascii: "\\"), escape])
                }
            } else {
                out.append(byte)
            }
            guard out.count <= FilterExpression.maxLiteralBytes else {
                throw FilterError("string literal longer than \(FilterExpression.maxLiteralBytes) bytes")
            }
        }
        throw FilterError("unterminated string starting at offset \(start)")
    }

    private mutating func unicodeEscape() throws(FilterError) -> [UInt8] {
        guard index + 4 <= bytes.count else { throw FilterError("bad \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = FilterJSONParser.hexDigit(bytes[index]) else { throw FilterError("bad \\u escape") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        guard let scalar = Unicode.Scalar(value) else { throw FilterError("bad \\u escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func number() throws(FilterError) -> Double {
        let start = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) || bytes[index] == UInt8(ascii: ".") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        guard index - start <= 64 else { throw FilterError("number too long at offset \(start)") }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw FilterError("malformed number at offset \(start)")
        }
        guard value.isFinite else { throw FilterError("number out of range at offset \(start)") }
        return value
    }

    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (0x30...0x39).contains(byte)
    }
}
