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
/// every line ends in CRLF (a bare LF or CR is refused, in heads, chunk lines and trailers alike;
/// trailer fields are checked like a head's); a
/// request with both `Content-Length` and `Transfer-Encoding`, conflicting lengths, a transfer
/// coding other than `chunked`, folded header lines, white space before a field's colon or a
/// control byte in a field is refused. A request that ends the connection (`Connection: close`,
/// HTTP/1.0 without keep-alive, an `Upgrade` or `CONNECT` request, chunked HTTP/1.0) is the last
/// one read: nothing after it is parsed, as RFC 9112 section 9.6 requires. Up to
/// `maxLeadingBlankLines` empty lines before a request line are ignored (section 2.2).
///
/// Invariants: work per received byte is bounded (a head is compared with the kept one when its
/// first bytes are read, and its end is then searched once over each byte, never again from its
/// start); at most `maxHeadBytes` of a head (or of a chunked body's trailer)
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
        /// The last request of the connection has been read: later bytes are dropped unread.
        case closed
    }

    /// Most bytes of a head, or of a chunked body's trailer section.
    public let maxHeadBytes: Int
    /// Most bytes of a chunk-size line (with its extensions).
    static let maxChunkLineBytes = 4096
    /// Most empty lines accepted before a request line.
    static let maxLeadingBlankLines = 8
    /// Empty lines skipped before the request line now arriving.
    var leadingBlankLines = 0
    /// The head now being read ends the connection: after its request, the parser closes.
    var lastRequest = false
    var state = State.head(scanned: 0)
    /// Received bytes not parsed yet; nil when there are none (so a finished read buffer is freed).
    var buffer: ByteBuffer?
    /// The last head read in full that may serve as the next one's template (`KeptHead`).
    var kept: KeptHead?
    /// Where kept heads are shared with the other connections of the loop; nil keeps one of its
    /// own.
    var bank: KeptHeadBank?

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
        // Empty lines between requests start no clock: at most `maxLeadingBlankLines` are taken.
        case .head: return buffer != nil
        case .ending: return true
        case .failed, .closed: return false
        case .body, .chunkSize, .chunkData, .chunkEnd, .trailers: return true
        }
    }

    /// Adds received bytes; `next()` then yields the parts they complete.
    public mutating func append(_ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0 else { return }
        switch state {
        case .failed, .closed: return
        default: break
        }
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

    /// Takes the `.end` that `next()` would give next without more bytes: true then, and `next()`
    /// goes on with the next request as it would after yielding `.end`; false, taking nothing,
    /// when the request is not at its end. Right after a head, true exactly when that request has
    /// no body (it is also true after a body's last part). For a caller that handles a request
    /// without a body at its head, instead of keeping the head until its end.
    public mutating func takeEnd() -> Bool {
        guard case .ending = state else { return false }
        finishRequest()
        return true
    }

    /// The current request is over: the next head follows, unless it was the connection's last.
    private mutating func finishRequest() {
        state = lastRequest ? .closed : .head(scanned: 0)
        if lastRequest { buffer = nil }
    }

    /// The next part in the current state (the framing functions call it again after a state
    /// change that yields nothing by itself).
    mutating func step() throws(Failure) -> Part? {
        switch state {
        case .failed, .closed:
            return nil
        case .ending:
            finishRequest()
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

    /// Consumes a CRLF if one is buffered: true when consumed, nil when more bytes are needed;
    /// throws for anything else.
    mutating func lineEnd() throws(Failure) -> Bool? {
        guard let bytes = buffer, let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return nil }
        guard first == .cr else { throw Failure("Expected CRLF") }
        guard let second = bytes.getInteger(at: bytes.readerIndex + 1, as: UInt8.self) else { return nil }
        guard second == .lf else { throw Failure("Bare CR") }
        consume(2)
        return true
    }

    mutating func consume(_ count: Int) {
        buffer!.moveReaderIndex(forwardBy: count)
        if buffer!.readableBytes == 0 { buffer = nil }
    }

    /// The offset just past the first empty line (CRLF CRLF) within the first `limit` bytes whose
    /// second LF is at or after `from`, or nil; throws at an LF that does not follow a CR. The
    /// caller has consumed any empty line at the very start, so an LF at offset 0 is a bare one.
    /// Only the first `limit` bytes are looked at, so the outcome is the same however the bytes
    /// were split into reads.
    static func blankLine(in view: ByteBufferView, from: Int, limit: Int) throws(Failure) -> Int? {
        let count = min(view.count, limit)
        let found = view.withContiguousStorageIfAvailable { bytes -> Int? in
            var offset = from
            while offset < count {
                guard let lf = bytes[offset..<count].firstIndex(of: .lf) else { return nil }
                guard lf > 0, bytes[lf - 1] == .cr else { return -1 }
                if lf + 2 < count, bytes[lf + 1] == .cr, bytes[lf + 2] == .lf { return lf + 3 }
                offset = lf + 1
            }
            return nil
        } ?? nil
        if found == -1 { throw Failure("Bare LF in a head") }
        return found
    }
}

extension UInt8 {
    static let lf = UInt8(ascii: "\n")
    static let cr = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
}
