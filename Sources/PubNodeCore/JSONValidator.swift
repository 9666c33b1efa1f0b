/// Checks that bytes are one well-formed JSON text (RFC 8259) without building any value.
///
/// Payloads are validated once at publish and then relayed byte-exact, so numbers beyond 2^53
/// and key order survive. Nesting deeper than `maxDepth` is refused to bound stack use, and a
/// number literal longer than `maxNumberLength` characters is refused: SDKs parse what the node
/// relays, and the Python SDK cannot read an integer of more than 4,300 digits (every long-poll
/// answer carrying one would fail, stalling its subscribers). More than `maxElements` values in
/// one text (every string, number, literal, array and object counts one) are refused, which bounds
/// what a decoder at the other end builds whatever the size limits are raised to.
public struct JSONValidator: Sendable {
    /// The deepest nesting of arrays and objects accepted.
    public var maxDepth: Int
    /// The longest number literal accepted, sign, fraction and exponent included.
    public var maxNumberLength: Int
    /// The most values in one text.
    public var maxElements: Int

    /// Creates a validator.
    public init(maxDepth: Int = 256, maxNumberLength: Int = 1000, maxElements: Int = 20_000) {
        self.maxDepth = maxDepth
        self.maxNumberLength = maxNumberLength
        self.maxElements = maxElements
    }

    /// True when `bytes` is exactly one JSON value, optionally surrounded by white space.
    public func isValid<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        if let valid = bytes.withContiguousStorageIfAvailable({ validate($0) }) { return valid }
        return ContiguousArray(bytes).withUnsafeBufferPointer { validate($0) }
    }

    /// True when `bytes` is one JSON value and, where it has non-ASCII bytes, valid UTF-8.
    public func isValidUTF8JSON(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard validate(buffer) else { return false }
            // Non-ASCII can only appear inside strings; check UTF-8 only when there is any.
            guard buffer.contains(where: { $0 >= 0x80 }) else { return true }
            return String(validating: buffer, as: UTF8.self) != nil
        }
    }

    private func validate(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var scanner = Scanner(bytes: buffer, maxDepth: maxDepth, maxNumberLength: maxNumberLength, maxElements: maxElements)
        return scanner.document()
    }
}

private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let maxNumberLength: Int
    let maxElements: Int
    var index = 0
    var elements = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxNumberLength: Int, maxElements: Int) {
        self.maxNumberLength = maxNumberLength
        self.maxElements = maxElements
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func document() -> Bool {
        skipSpace()
        guard value(depth: 0) else { return false }
        skipSpace()
        return index == bytes.count
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let start = text.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
        index += count
        return true
    }

    mutating func value(depth: Int) -> Bool {
        elements += 1
        guard let byte = peek, elements <= maxElements else { return false }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    mutating func object(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        index += 1
        skipSpace()
        if peek == UInt8(ascii: "}") { index += 1; return true }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\""), string() else { return false }
            skipSpace()
            guard peek == UInt8(ascii: ":") else { return false }
            index += 1
            skipSpace()
            guard value(depth: depth) else { return false }
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return true
            default: return false
            }
        }
    }

    mutating func array(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        index += 1
        skipSpace()
        if peek == UInt8(ascii: "]") { index += 1; return true }
        while true {
            skipSpace()
            guard value(depth: depth) else { return false }
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return true
            default: return false
            }
        }
    }

    mutating func string() -> Bool {
        index += 1
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return true
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return false }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let hex = peek, hex.isHexDigit else { return false }
                        index += 1
                    }
                default:
                    return false
                }
            case 0..<0x20:
                return false
            default:
                continue
            }
        }
        return false
    }

    mutating func number() -> Bool {
        let start = index
        guard numberSyntax() else { return false }
        return index - start <= maxNumberLength
    }

    mutating func numberSyntax() -> Bool {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, first.isDigit else { return false }
        index += 1
        if first != UInt8(ascii: "0") { digits() }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let next = peek, next.isDigit else { return false }
            digits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let next = peek, next.isDigit else { return false }
            digits()
        }
        return true
    }

    mutating func digits() {
        while let byte = peek, byte.isDigit { index += 1 }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    var isHexDigit: Bool { isDigit || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66) }
}
