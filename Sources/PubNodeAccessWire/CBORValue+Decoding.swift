extension CBORValue {
    /// Decodes exactly one data item from `bytes`.
    ///
    /// Bounded: at most ``maxDepth`` levels of arrays/maps and ``maxItems`` items in total. Rejects
    /// trailing bytes, truncation, indefinite lengths, lengths past the end, invalid UTF-8 text and
    /// anything outside the supported subset. Never traps, whatever the input.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        var reader = CBORReader(bytes: bytes)
        let value = try reader.readItem(depth: 0)
        guard reader.offset == bytes.count else { throw .trailingBytes }
        return value
    }
}

/// A cursor over CBOR bytes that counts items and nesting as it goes.
struct CBORReader {
    let bytes: [UInt8]
    var offset = 0
    var items = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - offset }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readBigEndian(_ count: Int) throws(CBORError) -> UInt64 {
        guard remaining >= count else { throw .truncated }
        var value: UInt64 = 0
        for index in offset..<(offset + count) {
            value = value << 8 | UInt64(bytes[index])
        }
        offset += count
        return value
    }

    /// Reads the argument that follows an initial byte with the given additional information.
    mutating func readArgument(_ info: UInt8, initial: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return try readBigEndian(1)
        case 25: return try readBigEndian(2)
        case 26: return try readBigEndian(4)
        case 27: return try readBigEndian(8)
        case 31: throw .indefiniteLength
        default: throw .unsupported(initial)
        }
    }

    /// Reads a length argument and checks that at least `length × minimumSize` bytes remain.
    mutating func readLength(_ info: UInt8, initial: UInt8, minimumSize: Int) throws(CBORError) -> Int {
        let argument = try readArgument(info, initial: initial)
        guard argument <= UInt64(remaining) else { throw .truncated }
        let length = Int(argument)
        guard minimumSize <= 1 || length <= remaining / minimumSize else { throw .truncated }
        return length
    }

    mutating func countItem() throws(CBORError) {
        items += 1
        guard items <= CBORValue.maxItems else { throw .tooManyItems }
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        try countItem()
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1f
        switch major {
        case 0:
            return .unsigned(try readArgument(info, initial: initial))
        case 1:
            let argument = try readArgument(info, initial: initial)
            guard argument <= UInt64(Int64.max) else { throw .integerOutOfRange }
            return .negative(-1 - Int64(argument))
        case 2:
            let length = try readLength(info, initial: initial, minimumSize: 1)
            defer { offset += length }
            return .bytes(Array(bytes[offset..<(offset + length)]))
        case 3:
            let length = try readLength(info, initial: initial, minimumSize: 1)
            guard let text = validatedText(bytes[offset..<(offset + length)]) else { throw .invalidUTF8 }
            offset += length
            return .text(text)
        case 4:
            guard depth < CBORValue.maxDepth else { throw .nestingTooDeep }
            let count = try readLength(info, initial: initial, minimumSize: 1)
            var values: [CBORValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try readItem(depth: depth + 1)) }
            return .array(values)
        case 5:
            guard depth < CBORValue.maxDepth else { throw .nestingTooDeep }
            let count = try readLength(info, initial: initial, minimumSize: 2)
            var pairs: [CBORPair] = []
            pairs.reserveCapacity(count)
            for _ in 0..<count {
                let key = try readItem(depth: depth + 1)
                let value = try readItem(depth: depth + 1)
                pairs.append(CBORPair(key, value))
            }
            return .map(pairs)
        case 6:
            throw .unsupported(initial)
        default:
            return try readSimple(info, initial: initial)
        }
    }

    mutating func readSimple(_ info: UInt8, initial: UInt8) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 25: return .double(Self.halfToDouble(UInt16(try readBigEndian(2))))
        case 26: return .double(Double(Float(bitPattern: UInt32(try readBigEndian(4)))))
        case 27: return .double(Double(bitPattern: try readBigEndian(8)))
        case 31: throw .indefiniteLength
        default: throw .unsupported(initial)
        }
    }

    /// Converts an IEEE 754 half-precision value (RFC 8949 Appendix D).
    static func halfToDouble(_ half: UInt16) -> Double {
        let exponent = Int((half >> 10) & 0x1f)
        let mantissa = Double(half & 0x3ff)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return half & 0x8000 != 0 ? -magnitude : magnitude
    }

    /// Returns the text if `slice` is valid UTF-8, else `nil` (no repair).
    func validatedText(_ slice: ArraySlice<UInt8>) -> String? {
        String(validating: slice, as: UTF8.self)
    }
}
