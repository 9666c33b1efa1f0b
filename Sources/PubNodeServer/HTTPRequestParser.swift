import NIOCore
import NIOHTTP1

/// An incremental HTTP/1.1 request parser (RFC 9112) for the node's connections: bytes in, request
/// parts out, one request after another on a kept-alive or pipelined connection.
///
/// It replaces NIO's llhttp-based decoder on the node's hot path: the request line and header
/// fields are read straight from the received bytes into a `RequestHead` (two strings, not one per
/// field), and a body arrives as slices of the received buffer, never copied.
///
/// Strict where leniency lets two parsers disagree about where a request ends (request smuggling):
/// a request with both `Content-Length` and `Transfer-Encoding`, conflicting lengths, a transfer
/// coding other than `chunked`, folded header lines, white space before a field's colon, a bare CR
/// or a control byte in a field is refused. Lenient where RFC 9112 allows: empty lines before a
/// request line and a bare LF as line end are accepted.
///
/// Invariants: work per received byte is bounded (a head's end is searched once over each byte,
/// never again from its start); at most `maxHeadBytes` of a head (or of a chunked body's trailer)
/// are buffered before it is refused; after a failure it yields nothing more.
public struct HTTPRequestParser: Sendable {
    /// A piece of a request, in order: one head, the body's bytes in any number of slices, one end.
    public enum Part: Sendable {
        /// A complete head.
        case head(RequestHead)
        /// Body bytes (after `Transfer-Encoding: chunked` is undone; still compressed if the
        /// request says so).
        case body(ByteBuffer)
        /// The request is complete.
        case end
    }

    /// Why bytes were refused: the status and message the node answers with before closing.
    public struct Failure: Error, Sendable, Equatable {
        /// The HTTP status to answer.
        public var status: HTTPResponseStatus
        /// What was wrong, for the error body.
        public var message: String

        init(_ status: HTTPResponseStatus, _ message: String) {
            self.status = status
            self.message = message
        }

        init(_ message: String) {
            self.init(.badRequest, message)
        }
    }

    enum State: Sendable {
        /// Waiting for a head; bytes before `scanned` hold no head end.
        case head(scanned: Int)
        /// The head (and its body, if any) is out: `.end` comes next.
        case ending
        /// A `Content-Length` body with this many bytes still to come.
        case body(remaining: Int)
        /// A chunked body, before a chunk-size line.
        case chunkSize
        /// Inside a chunk with this many bytes still to come.
        case chunkData(remaining: Int)
        /// After a chunk's data, before its line end.
        case chunkEnd
        /// After the last chunk, reading trailer fields (ignored); bytes before `scanned` hold no end.
        case trailers(scanned: Int)
        /// Refused: nothing more is read.
        case failed
    }

    /// Most bytes of a head, or of a chunked body's trailer section.
    public let maxHeadBytes: Int
    /// Most bytes of a chunk-size line (with its extensions).
    static let maxChunkLineBytes = 4096
    var state = State.head(scanned: 0)
    /// Received bytes not parsed yet; nil when there are none (so a finished read buffer is freed).
    var buffer: ByteBuffer?

    /// A parser refusing heads over `maxHeadBytes`.
    public init(maxHeadBytes: Int) {
        self.maxHeadBytes = maxHeadBytes
    }

    /// Bytes received and not yet parsed.
    public var bufferedBytes: Int { buffer?.readableBytes ?? 0 }

    /// Whether a request has begun to arrive and not yet ended (bytes of a head are buffered, or a
    /// head was read and its body is still coming).
    public var hasUnfinishedRequest: Bool {
        switch state {
        case .head, .ending, .failed: return buffer != nil
        case .body, .chunkSize, .chunkData, .chunkEnd, .trailers: return true
        }
    }

    /// Adds received bytes; `next()` then yields the parts they complete.
    public mutating func append(_ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0 else { return }
        if buffer == nil || buffer!.readableBytes == 0 {
            buffer = bytes
        } else {
            var incoming = bytes
            if buffer!.readerIndex > 4096 { buffer!.discardReadBytes() }
            buffer!.writeBuffer(&incoming)
        }
    }

    /// The next complete part, or nil until more bytes arrive. Throws once for bytes that are not a
    /// valid request; nothing is yielded after that.
    public mutating func next() throws(Failure) -> Part? {
        do {
            return try step()
        } catch {
            state = .failed
            buffer = nil
            throw error
        }
    }

    private mutating func step() throws(Failure) -> Part? {
        switch state {
        case .failed:
            return nil
        case .ending:
            state = .head(scanned: 0)
            return .end
        case .head(let scanned):
            return try readHead(scanned: scanned)
        case .body(let remaining):
            guard let slice = take(upTo: remaining) else { return nil }
            state = remaining == slice.readableBytes ? .ending : .body(remaining: remaining - slice.readableBytes)
            return .body(slice)
        case .chunkSize:
            return try readChunkSize()
        case .chunkData(let remaining):
            guard let slice = take(upTo: remaining) else { return nil }
            state = remaining == slice.readableBytes ? .chunkEnd : .chunkData(remaining: remaining - slice.readableBytes)
            return .body(slice)
        case .chunkEnd:
            guard let ended = try lineEnd(), ended else { return nil }
            state = .chunkSize
            return try step()
        case .trailers(let scanned):
            return try readTrailers(scanned: scanned)
        }
    }

    /// Up to `count` buffered bytes as a slice, consumed; nil when none are buffered.
    private mutating func take(upTo count: Int) -> ByteBuffer? {
        guard var bytes = buffer, bytes.readableBytes > 0 else { return nil }
        let slice = bytes.readSlice(length: min(count, bytes.readableBytes))!
        buffer = bytes.readableBytes == 0 ? nil : bytes
        return slice
    }

    /// Consumes a line end (CRLF or LF) if one is buffered: true when consumed, nil when more bytes
    /// are needed; throws for anything else.
    private mutating func lineEnd() throws(Failure) -> Bool? {
        guard let bytes = buffer, let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return nil }
        if first == .lf {
            consume(1)
            return true
        }
        guard first == .cr else { throw Failure("Chunk data longer than its size") }
        guard let second = bytes.getInteger(at: bytes.readerIndex + 1, as: UInt8.self) else { return nil }
        guard second == .lf else { throw Failure("Bare CR in a chunked body") }
        consume(2)
        return true
    }

    mutating func consume(_ count: Int) {
        buffer!.moveReaderIndex(forwardBy: count)
        if buffer!.readableBytes == 0 { buffer = nil }
    }

    /// Reads a chunk-size line (`1a;ext=x`): a chunk, or the trailers after the last one.
    private mutating func readChunkSize() throws(Failure) -> Part? {
        guard let bytes = buffer else { return nil }
        let view = bytes.readableBytesView
        guard let lf = view.firstIndex(of: .lf) else {
            if view.count > Self.maxChunkLineBytes { throw Failure("Chunk-size line too long") }
            return nil
        }
        guard lf - view.startIndex <= Self.maxChunkLineBytes else { throw Failure("Chunk-size line too long") }
        var size = 0
        var digits = 0
        var index = view.startIndex
        while index < lf, let digit = Self.hexValue(view[index]) {
            digits += 1
            guard digits <= 15 else { throw Failure("Chunk size too large") }
            size = size << 4 | digit
            index += 1
        }
        guard digits > 0 else { throw Failure("Invalid chunk size") }
        var end = lf
        if end > index, view[end - 1] == .cr { end -= 1 }
        // After the size: optional white space and extensions (`;name=value`), which are ignored.
        while index < end, view[index] == .space || view[index] == .tab { index += 1 }
        if index < end {
            guard view[index] == UInt8(ascii: ";") else { throw Failure("Invalid chunk size") }
            guard !view[index..<end].contains(where: { $0 < 0x20 && $0 != .tab || $0 == 0x7F }) else {
                throw Failure("Invalid chunk extension")
            }
        }
        consume(lf - view.startIndex + 1)
        state = size == 0 ? .trailers(scanned: 0) : .chunkData(remaining: size)
        return try step()
    }

    /// Skips the trailer section after the last chunk, up to its blank line.
    private mutating func readTrailers(scanned: Int) throws(Failure) -> Part? {
        guard let bytes = buffer else { return nil }
        if let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self), first == .lf || first == .cr {
            // No trailer fields: the blank line comes at once.
            guard let ended = try lineEnd(), ended else { return nil }
            state = .ending
            return try step()
        }
        guard let end = Self.blankLine(in: bytes.readableBytesView, from: scanned) else {
            if bytes.readableBytes > maxHeadBytes {
                throw Failure(.requestHeaderFieldsTooLarge, "Trailer section over \(maxHeadBytes) bytes")
            }
            state = .trailers(scanned: max(0, bytes.readableBytes - 2))
            return nil
        }
        guard end <= maxHeadBytes else {
            throw Failure(.requestHeaderFieldsTooLarge, "Trailer section over \(maxHeadBytes) bytes")
        }
        consume(end)
        state = .ending
        return try step()
    }

    /// The offset just past the first blank line (LF LF or LF CR LF) at or after `from`, or nil.
    static func blankLine(in view: ByteBufferView, from: Int) -> Int? {
        let count = view.count
        var offset = from
        return view.withContiguousStorageIfAvailable { bytes -> Int? in
            while offset < count {
                guard let lf = bytes[offset...].firstIndex(of: .lf) else { return nil }
                if lf + 1 < count, bytes[lf + 1] == .lf { return lf + 2 }
                if lf + 2 < count, bytes[lf + 1] == .cr, bytes[lf + 2] == .lf { return lf + 3 }
                offset = lf + 1
            }
            return nil
        } ?? nil
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}

extension UInt8 {
    static let lf = UInt8(ascii: "\n")
    static let cr = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
}
