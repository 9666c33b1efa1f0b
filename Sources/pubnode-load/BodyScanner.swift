import NIOCore

/// Minimal, allocation-light scanning of the small JSON bodies this tool receives.
///
/// Full JSON parsing is avoided on purpose: receive timestamps are taken before parsing,
/// but parsing time on a busy event loop delays the timestamps of the next responses.
enum BodyScanner {
    /// One message payload found in a body.
    struct Stamp: Equatable {
        /// Monotonic send time written by the publisher.
        var sentNanos: UInt64
        /// Sequence number written by the publisher.
        var sequence: Int
    }

    /// Whether the body starts with `prefix`.
    static func hasPrefix(_ body: ByteBuffer, _ prefix: [UInt8]) -> Bool {
        guard body.readableBytes >= prefix.count else { return false }
        return body.readableBytesView.prefix(prefix.count).elementsEqual(prefix)
    }

    /// The PubNub timetoken in `{"t":{"t":"<digits>",...},...}`, tolerating whitespace.
    static func timetoken(in body: ByteBuffer) -> String? {
        let bytes = Array(body.readableBytesView)
        let key = Array("\"t\"".utf8)
        var start = 0
        while let found = find(key, in: bytes, from: start) {
            start = found + key.count
            var i = skipSpace(bytes, start)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { continue }
            i = skipSpace(bytes, i + 1)
            guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { continue }
            i = skipSpace(bytes, i + 1)
            guard let inner = find(key, in: bytes, from: i), inner == i else { continue }
            i = skipSpace(bytes, i + key.count)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { continue }
            i = skipSpace(bytes, i + 1)
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { continue }
            let digitsStart = i + 1
            var end = digitsStart
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            guard end > digitsStart, end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
            return String(decoding: bytes[digitsStart..<end], as: UTF8.self)
        }
        return nil
    }

    /// Every `{"sent_ns":N,"seq":K}` payload in the body, in order.
    static func stamps(in body: ByteBuffer) -> [Stamp] {
        let bytes = Array(body.readableBytesView)
        var result: [Stamp] = []
        var start = 0
        while let found = find(sentKey, in: bytes, from: start) {
            start = found + sentKey.count
            guard let (sent, afterSent) = number(in: bytes, after: start) else { continue }
            var sequence = -1
            if let seqAt = find(seqKey, in: bytes, from: afterSent), seqAt - afterSent < 8,
                let (seq, _) = number(in: bytes, after: seqAt + seqKey.count)
            {
                sequence = Int(seq)
            }
            result.append(Stamp(sentNanos: sent, sequence: sequence))
        }
        return result
    }

    /// JSON key of the send time.
    private static let sentKey = Array("\"sent_ns\"".utf8)
    /// JSON key of the sequence number.
    private static let seqKey = Array("\"seq\"".utf8)

    /// Parses `: <digits>` starting at `index`; returns the value and the index after it.
    private static func number(in bytes: [UInt8], after index: Int) -> (UInt64, Int)? {
        var i = skipSpace(bytes, index)
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
        i = skipSpace(bytes, i + 1)
        var value: UInt64 = 0
        let first = i
        while i < bytes.count, isDigit(bytes[i]), i - first < 19 {
            value = value * 10 + UInt64(bytes[i] - UInt8(ascii: "0"))
            i += 1
        }
        return i > first ? (value, i) : nil
    }

    /// Index of the first occurrence of `needle` in `bytes` at or after `from`.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var i = from
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == needle[0] {
                var j = 1
                while j < needle.count, bytes[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// First index at or after `index` that is not JSON whitespace.
    private static func skipSpace(_ bytes: [UInt8], _ index: Int) -> Int {
        var i = index
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        return i
    }

    /// ASCII digit test.
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
