/// Percent-decoding of URL path segments and query components.
enum PercentDecoding {
    /// Decodes `%XX` escapes in `text`; nil when an escape is malformed or the result is not UTF-8.
    /// `+` stays a literal plus: PubNub clients percent-encode spaces.
    static func decode(_ text: Substring) -> String? {
        let escaped = text.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "%")) }
            ?? text.utf8.contains(UInt8(ascii: "%"))
        guard escaped else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
