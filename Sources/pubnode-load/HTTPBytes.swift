/// Byte-level helpers for parsing HTTP/1.x heads.
enum HTTPBytes {
    /// ASCII lower-casing of one byte.
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// If `line` is `Name: value` with `Name` equal to `name` (case-insensitive), returns
    /// the value without surrounding whitespace and without a trailing CR.
    static func value(of name: [UInt8], inLine line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard line.count > name.count, line[name.count] == UInt8(ascii: ":") else { return nil }
        for index in 0..<name.count where lower(line[index]) != lower(name[index]) { return nil }
        var start = name.count + 1
        var end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 || line[end - 1] == 0x0D { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[start..<end])
    }

    /// Whether `value` contains `token` as a comma-separated element (case-insensitive).
    static func hasToken(_ token: [UInt8], in value: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        while start <= value.count {
            var end = start
            while end < value.count, value[end] != UInt8(ascii: ",") { end += 1 }
            var a = start
            var b = end
            while a < b, value[a] == 0x20 || value[a] == 0x09 { a += 1 }
            while b > a, value[b - 1] == 0x20 || value[b - 1] == 0x09 { b -= 1 }
            if b - a == token.count {
                var same = true
                for index in 0..<token.count where lower(value[a + index]) != lower(token[index]) {
                    same = false
                    break
                }
                if same { return true }
            }
            start = end + 1
        }
        return false
    }

    /// Parses a non-negative decimal integer; nil if empty, not all digits, or too long.
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// Parses a hexadecimal chunk size (stops at `;` extensions or whitespace).
    static func hexadecimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var value = 0
        var digits = 0
        for byte in bytes {
            let digit: Int
            switch byte {
            case 0x30...0x39: digit = Int(byte - 0x30)
            case 0x41...0x46: digit = Int(byte - 0x41 + 10)
            case 0x61...0x66: digit = Int(byte - 0x61 + 10)
            case UInt8(ascii: ";"), 0x20, 0x09, 0x0D: return digits > 0 ? value : nil
            default: return nil
            }
            digits += 1
            guard digits <= 15 else { return nil }
            value = value * 16 + digit
        }
        return digits > 0 ? value : nil
    }
}
