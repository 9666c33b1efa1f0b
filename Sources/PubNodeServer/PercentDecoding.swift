import PubNodeAccessWire

/// Percent-decoding of request-target components (RFC 3986), over the target's bytes.
enum PercentDecoding {
    /// Decodes `%XX` escapes in `bytes` (a slice of a valid UTF-8 target, cut at ASCII delimiters);
    /// nil when an escape is malformed or the result is not UTF-8. `+` stays a literal plus: PubNub
    /// clients percent-encode spaces. Without escapes the bytes are taken as they are, with no
    /// intermediate copy.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { out -> String? in
            guard let count = unescape(bytes, into: out) else { return nil }
            return String(validating: UnsafeBufferPointer(rebasing: out[..<count]), as: UTF8.self)
        }
    }

    /// `decode(_:)` into bytes rather than a string (a payload, kept as bytes): nil exactly when
    /// `decode(_:)` would be.
    static func decodeBytes(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.contains(UInt8(ascii: "%")) else { return Array(bytes) }
        // Sized once (a copy of the escaped bytes, written over) and trimmed. Built as a copy of a
        // collection, the array is allocated by code specialized for bytes; the uninitialized-
        // capacity and repeating initializers allocate through the standard library's generic
        // entry point, which looks the array's storage type up at run time on every call (about
        // 300 instructions of each publish's profile).
        var decoded = Array(bytes)
        let written = decoded.withUnsafeMutableBufferPointer { unescape(bytes, into: $0) }
        guard let written else { return nil }
        decoded.removeLast(decoded.count - written)
        // ASCII is UTF-8; anything else is checked the way `decode(_:)` checks it.
        if decoded.contains(where: { $0 >= 0x80 }), String(validating: decoded, as: UTF8.self) == nil { return nil }
        return decoded
    }

    /// Whether `decode(_:)` would decode `bytes`, without keeping the result when there are escapes.
    static func decodes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.contains(UInt8(ascii: "%")) || decode(bytes) != nil
    }

    /// Writes `bytes` with their escapes undone into `out` (at least `bytes.count` long); the
    /// count written, or nil when an escape is malformed.
    private static func unescape(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var count = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = bytes[index + 1].hexDigitValue, let low = bytes[index + 2].hexDigitValue
                else { return nil }
                out[count] = high << 4 | low
                index += 3
            } else {
                out[count] = byte
                index += 1
            }
            count += 1
        }
        return count
    }
}
