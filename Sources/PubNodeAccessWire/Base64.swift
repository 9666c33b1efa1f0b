/// Base64 (RFC 4648) encoding and lenient decoding without Foundation.
enum Base64 {
    static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes `bytes` with the standard or URL-safe alphabet, with or without `=` padding.
    static func encode(_ bytes: [UInt8], urlSafe: Bool, padded: Bool) -> String {
        let alphabet = urlSafe ? Self.urlSafe : Self.standard
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((chunk >> UInt32(shift)) & 0x3f)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var chunk = UInt32(bytes[index]) << 16
            if rest == 2 { chunk |= UInt32(bytes[index + 1]) << 8 }
            out.append(alphabet[Int(chunk >> 18 & 0x3f)])
            out.append(alphabet[Int(chunk >> 12 & 0x3f)])
            if rest == 2 { out.append(alphabet[Int(chunk >> 6 & 0x3f)]) }
            if padded { out.append(contentsOf: Array(repeating: UInt8(ascii: "="), count: 3 - rest)) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64 in either alphabet (mixing allowed), padded or not.
    ///
    /// Padding, when present, must complete the last quantum exactly; `=` elsewhere, a lone
    /// trailing sextet or any other character gives `nil`. Unused trailing bits are ignored.
    static func decode<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.count)
        var padding = 0
        for byte in text {
            if byte == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0, let value = sextet(byte) else { return nil }
            values.append(value)
        }
        let rest = values.count % 4
        guard rest != 1 else { return nil }
        if padding > 0 { guard rest != 0, rest + padding == 4 else { return nil } }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
                | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            out.append(UInt8(truncatingIfNeeded: chunk >> 16))
            out.append(UInt8(truncatingIfNeeded: chunk >> 8))
            out.append(UInt8(truncatingIfNeeded: chunk))
            index += 4
        }
        if rest >= 2 {
            var chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
            if rest == 3 { chunk |= UInt32(values[index + 2]) << 6 }
            out.append(UInt8(truncatingIfNeeded: chunk >> 16))
            if rest == 3 { out.append(UInt8(truncatingIfNeeded: chunk >> 8)) }
        }
        return out
    }

    static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}

/// Compares two byte sequences in time that depends only on their lengths.
func constantTimeEqual(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
    var left = lhs.makeIterator()
    var right = rhs.makeIterator()
    while true {
        let l = left.next()
        let r = right.next()
        if l == nil && r == nil { break }
        difference |= (l ?? 0) ^ (r ?? 0)
    }
    return difference == 0
}
