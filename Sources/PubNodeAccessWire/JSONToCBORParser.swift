/// A strict RFC 8259 JSON parser producing ``CBORValue``s.
struct JSONToCBORParser {
    let bytes: [UInt8]
    var offset = 0
    var items = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var failure: CBORError { .invalidJSON(offset: offset) }

    mutating func skipWhitespace() {
        while offset < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[offset]) { offset += 1 }
    }

    mutating func expect(_ literal: String) throws(CBORError) {
        for byte in literal.utf8 {
            guard offset < bytes.count, bytes[offset] == byte else { throw failure }
            offset += 1
        }
    }

    mutating func parseValue(depth: Int) throws(CBORError) -> CBORValue {
        items += 1
        guard items <= CBORValue.maxItems else { throw .tooManyItems }
        guard offset < bytes.count else { throw failure }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .text(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try parseNumber()
        }
    }

    mutating func parseObject(depth: Int) throws(CBORError) -> CBORValue {
        guard depth < CBORValue.maxDepth else { throw .nestingTooDeep }
        offset += 1
        var pairs: [CBORPair] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") { offset += 1; return .map(pairs) }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw failure }
            items += 1
            guard items <= CBORValue.maxItems else { throw .tooManyItems }
            let key = try parseString()
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            pairs.append(CBORPair(.text(key), try parseValue(depth: depth + 1)))
            skipWhitespace()
            guard offset < bytes.count else { throw failure }
            if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .map(pairs) }
            try expect(",")
        }
    }

    mutating func parseArray(depth: Int) throws(CBORError) -> CBORValue {
        guard depth < CBORValue.maxDepth else { throw .nestingTooDeep }
        offset += 1
        var values: [CBORValue] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(values) }
        while true {
            skipWhitespace()
            values.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard offset < bytes.count else { throw failure }
            if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(values) }
            try expect(",")
        }
    }

    mutating func parseHex4() throws(CBORError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw failure }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexDigit(bytes[offset]) else { throw failure }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    mutating func parseString() throws(CBORError) -> String {
        offset += 1
        var raw: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw failure }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { offset += 1; break }
            guard byte >= 0x20 else { throw failure }
            guard byte == UInt8(ascii: "\\") else { raw.append(byte); offset += 1; continue }
            offset += 1
            guard offset < bytes.count else { throw failure }
            let escape = bytes[offset]
            offset += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): raw.append(escape)
            case UInt8(ascii: "b"): raw.append(0x08)
            case UInt8(ascii: "f"): raw.append(0x0c)
            case UInt8(ascii: "n"): raw.append(0x0a)
            case UInt8(ascii: "r"): raw.append(0x0d)
            case UInt8(ascii: "t"): raw.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xd800..<0xdc00).contains(code) {
                    try expect("\\u")
                    let low = try parseHex4()
                    guard (0xdc00..<0xe000).contains(low) else { throw failure }
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure }
                raw.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw failure
            }
        }
        guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    mutating func parseNumber() throws(CBORError) -> CBORValue {
        let start = offset
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let integerStart = offset
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure }
        guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
            throw .invalidJSON(offset: integerStart)  // leading zero
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard digits() > 0 else { throw failure }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw failure }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger {
            if let value = UInt64(text) { return .unsigned(value) }
            if let value = Int64(text) { return value < 0 ? .negative(value) : .unsigned(0) }
        }
        guard let value = Double(text) else { throw .invalidJSON(offset: start) }
        return .double(value)
    }

    /// Consumes ASCII digits and returns how many.
    mutating func digits() -> Int {
        let start = offset
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
        return offset - start
    }

    func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
