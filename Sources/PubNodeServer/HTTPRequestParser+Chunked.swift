import NIOCore
import PubNodeAccessWire

/// The chunked transfer coding (RFC 9112 section 7.1): chunk-size lines, and the trailer section
/// after the last chunk. A chunk's data is taken by `step()` like a `Content-Length` body.
extension HTTPRequestParser {
    /// Reads a chunk-size line (`1a;ext=x`): a chunk, or the trailers after the last one.
    mutating func readChunkSize() throws(Failure) -> Part? {
        guard let bytes = buffer else { return nil }
        let view = bytes.readableBytesView
        guard let lf = view.firstIndex(of: .lf) else {
            if view.count > Self.maxChunkLineBytes { throw Failure("Chunk-size line too long") }
            return nil
        }
        guard lf - view.startIndex <= Self.maxChunkLineBytes else { throw Failure("Chunk-size line too long") }
        guard lf > view.startIndex, view[lf - 1] == .cr else { throw Failure("Bare LF in a chunk-size line") }
        var size = 0
        var digits = 0
        var index = view.startIndex
        while index < lf, let digit = view[index].hexDigitValue {
            digits += 1
            guard digits <= 15 else { throw Failure("Chunk size too large") }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard digits > 0 else { throw Failure("Invalid chunk size") }
        let end = lf - 1
        // After the size: optional white space and extensions (`;name=value`), which are ignored.
        while index < end, view[index] == .space || view[index] == .tab { index += 1 }
        if index < end {
            guard view[index] == UInt8(ascii: ";") else { throw Failure("Invalid chunk size") }
            guard !view[index..<end].contains(where: { ($0 < 0x20 && $0 != .tab) || $0 == 0x7F }) else {
                throw Failure("Invalid chunk extension")
            }
        }
        consume(lf - view.startIndex + 1)
        state = size == 0 ? .trailers(scanned: 0) : .chunkData(remaining: size)
        return try step()
    }

    /// Reads the trailer section after the last chunk, up to its empty line: its fields are checked
    /// like a head's and otherwise ignored.
    mutating func readTrailers(scanned: Int) throws(Failure) -> Part? {
        guard let bytes = buffer else { return nil }
        if let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self), first == .cr {
            // No trailer fields: the blank line comes at once.
            guard let ended = try lineEnd(), ended else { return nil }
            state = .ending
            return try step()
        }
        guard let end = try Self.blankLine(in: bytes.readableBytesView, from: scanned, limit: maxHeadBytes) else {
            if bytes.readableBytes >= maxHeadBytes {
                throw Failure(.requestHeaderFieldsTooLarge, "Trailer section over \(maxHeadBytes) bytes")
            }
            state = .trailers(scanned: max(0, bytes.readableBytes - 2))
            return nil
        }
        let failure = bytes.withUnsafeReadableBytes { raw -> Failure? in
            var fields = FieldScan()
            return Self.scanFields(UnsafeRawBufferPointer(rebasing: raw[..<(end - 2)]), into: &fields)
        }
        if let failure { throw failure }
        consume(end)
        state = .ending
        return try step()
    }
}
