import NIOCore
import NIOHTTP1

extension HTTPRequestParser {
    /// Reads a head once its blank line has arrived; sets up the body's framing.
    mutating func readHead(scanned: Int) throws(Failure) -> Part? {
        // A head met for the first time may be the kept one with another target.
        if scanned == 0, let part = readKeptHead() { return part }
        // A few empty lines before a request line are ignored (RFC 9112 section 2.2).
        while let bytes = buffer, let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self), first == .cr {
            guard let ended = try lineEnd(), ended else { return nil }
            leadingBlankLines += 1
            guard leadingBlankLines <= Self.maxLeadingBlankLines else { throw Failure("Too many empty lines") }
        }
        guard let bytes = buffer else { return nil }
        guard let end = try Self.blankLine(in: bytes.readableBytesView, from: scanned, limit: maxHeadBytes) else {
            if bytes.readableBytes >= maxHeadBytes {
                throw Failure(.requestHeaderFieldsTooLarge, "Request head over \(maxHeadBytes) bytes")
            }
            state = .head(scanned: max(0, bytes.readableBytes - 2))
            return nil
        }
        let parsed = bytes.withUnsafeReadableBytes { raw in
            Self.parseHead(UnsafeRawBufferPointer(rebasing: raw[..<end]), of: bytes)
        }
        let head = try parsed.get()
        keepHead(head, end: end, of: bytes)
        return finishHead(head, end: end)
    }

    /// Takes `head`, the first `end` buffered bytes, off the buffer and sets up its body's framing:
    /// a head read in full and one read off the kept head go on the same way.
    mutating func finishHead(_ head: consuming RequestHead, end: Int) -> Part {
        consume(end)
        leadingBlankLines = 0
        lastRequest = !head.keepAlive
        if head.chunked {
            state = .chunkSize
        } else if let length = head.contentLength, length > 0 {
            state = .body(remaining: length)
        } else {
            state = .ending
        }
        return .head(head)
    }

    /// Parses a whole head: request line, fields, and the blank line that ends it. `raw` views the
    /// first readable bytes of `buffer`, which the head's target is sliced from.
    static func parseHead(_ raw: UnsafeRawBufferPointer, of buffer: ByteBuffer) -> Result<RequestHead, Failure> {
        // The caller found the empty line and saw a CR before every LF, so the request line's CRLF
        // exists.
        let lineFeed = raw.firstIndex(of: .lf)!
        let requestLineEnd = lineFeed - 1
        var head: RequestHead
        let read = requestLine(UnsafeRawBufferPointer(rebasing: raw[..<requestLineEnd]), of: buffer)
        switch consume read {
        case .success(let line): head = line
        case .failure(let failure): return .failure(failure)
        }
        let blockStart = lineFeed + 1
        let blockEnd = raw.count - 2
        let connects: Bool
        if case .CONNECT = head.method { connects = true } else { connects = false }
        guard blockEnd > blockStart else {
            if connects { head.keepAlive = false }
            return .success(head)
        }
        var fields = FieldScan()
        if let failure = scanFields(UnsafeRawBufferPointer(rebasing: raw[blockStart..<blockEnd]), into: &fields) {
            return .failure(failure)
        }
        if fields.chunked, fields.contentLength != nil {
            return .failure(Failure("Both Content-Length and Transfer-Encoding"))
        }
        head.contentLength = fields.contentLength
        head.chunked = fields.chunked
        head.contentEncoding = fields.contentEncoding
        head.fieldCount = fields.count
        head.keepAlive = head.minorVersion == 1 ? !fields.close : fields.keepAlive && !fields.close
        // After these the connection is not HTTP/1.1 requests any more (or its framing is faulty,
        // RFC 9112 section 6.1): it closes after the answer, and nothing after them is read.
        if fields.upgrade || connects || (fields.chunked && head.minorVersion == 0) { head.keepAlive = false }
        if !head.fieldsUnread {
            head.fieldBlock = String(decoding: UnsafeRawBufferPointer(rebasing: raw[blockStart..<blockEnd]), as: UTF8.self)
        }
        return .success(head)
    }

    /// Reads field lines, each ending in CRLF (checked by the caller's scan), into `fields`; the
    /// first failure, if any.
    static func scanFields(_ block: UnsafeRawBufferPointer, into fields: inout FieldScan) -> Failure? {
        var lineStart = 0
        while lineStart < block.count {
            var lineFeed = lineStart
            while block[lineFeed] != .lf { lineFeed += 1 }
            if let failure = fields.read(UnsafeRawBufferPointer(rebasing: block[lineStart..<(lineFeed - 1)])) {
                return failure
            }
            lineStart = lineFeed + 1
        }
        return nil
    }

    /// `METHOD SP target SP HTTP/1.x`, single spaces, a target of visible ASCII. `line` views the
    /// first readable bytes of `buffer`; the head's target is a slice of it.
    static func requestLine(_ line: UnsafeRawBufferPointer, of buffer: ByteBuffer) -> Result<RequestHead, Failure> {
        // Each part is scanned once, byte by byte over the buffer (not through slices' generic
        // search), stopping at its space.
        var methodEnd = 0
        while methodEnd < line.count, line[methodEnd] != .space, isTokenByte(line[methodEnd]) { methodEnd += 1 }
        guard methodEnd > 0, methodEnd < line.count, line[methodEnd] == .space else {
            return .failure(Failure("Invalid request line"))
        }
        let targetStart = methodEnd + 1
        var targetEnd = targetStart
        while targetEnd < line.count, line[targetEnd] > 0x20, line[targetEnd] < 0x7F { targetEnd += 1 }
        guard targetEnd > targetStart, targetEnd < line.count, line[targetEnd] == .space else {
            return .failure(Failure("Invalid request target"))
        }
        let version = UnsafeRawBufferPointer(rebasing: line[(targetEnd + 1)...])
        let minor: Int
        if version.elementsEqual("HTTP/1.1".utf8) {
            minor = 1
        } else if version.elementsEqual("HTTP/1.0".utf8) {
            minor = 0
        } else if version.count == 8, version.starts(with: "HTTP/".utf8) {
            return .failure(Failure(.httpVersionNotSupported, "Only HTTP/1.0 and HTTP/1.1 are served"))
        } else {
            return .failure(Failure("Invalid HTTP version"))
        }
        let method = Self.method(UnsafeRawBufferPointer(rebasing: line[..<methodEnd]))
        let target = UnsafeRawBufferPointer(rebasing: line[targetStart..<targetEnd])
        let slice = buffer.getSlice(at: buffer.readerIndex + targetStart, length: target.count)!
        return .success(RequestHead(method: method, target: slice, family: RequestFamily(target: target), minorVersion: minor, keepAlive: minor == 1,
                                    contentLength: nil, chunked: false, contentEncoding: .identity,
                                    fieldCount: 0, fieldBlock: ""))
    }

    /// The method called `name`: GET and POST (nearly every request) without building a string.
    static func method(_ name: UnsafeRawBufferPointer) -> HTTPMethod {
        if name.elementsEqual("GET".utf8) { return .GET }
        if name.elementsEqual("POST".utf8) { return .POST }
        return HTTPMethod(rawValue: String(decoding: name, as: UTF8.self))
    }

    /// A `tchar` of RFC 9110: what field names and methods are made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

/// The header fields of one head as they are read: the count, and the fields that frame the body
/// or the connection.
struct FieldScan {
    var count = 0
    var contentLength: Int?
    var chunked = false
    var close = false
    var keepAlive = false
    var upgrade = false
    var contentEncoding = RequestHead.ContentEncoding.identity

    typealias Failure = HTTPRequestParser.Failure

    /// Reads one field line (without its line end); a failure when it is malformed or frames the
    /// body ambiguously.
    mutating func read(_ line: UnsafeRawBufferPointer) -> Failure? {
        guard let first = line.first else { return Failure("Empty header line") }
        if first == .space || first == .tab { return Failure("Folded header lines are not accepted") }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              line[..<colon].allSatisfy(HTTPRequestParser.isTokenByte) else {
            return Failure("Invalid header field name")
        }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd, line[valueStart] == .space || line[valueStart] == .tab { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == .space || line[valueEnd - 1] == .tab { valueEnd -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd])
        guard !value.contains(where: { ($0 < 0x20 && $0 != .tab) || $0 == 0x7F }) else {
            return Failure("Invalid character in header field value")
        }
        count += 1
        let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
        switch name.count {
        case 14 where Self.equalsIgnoringCase(name, "content-length"):
            guard value.count > 0, value.count <= 18, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return Failure("Invalid Content-Length")
            }
            let length = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            if let earlier = contentLength, earlier != length { return Failure("Conflicting Content-Length fields") }
            contentLength = length
        case 17 where Self.equalsIgnoringCase(name, "transfer-encoding"):
            guard !chunked, Self.equalsIgnoringCase(value, "chunked") else {
                return Failure(.notImplemented, "Only Transfer-Encoding: chunked is accepted")
            }
            chunked = true
        case 10 where Self.equalsIgnoringCase(name, "connection"):
            var start = 0
            while start < value.count {
                var end = start
                while end < value.count, value[end] != UInt8(ascii: ",") { end += 1 }
                var low = start
                var high = end
                while low < high, value[low] == .space || value[low] == .tab { low += 1 }
                while high > low, value[high - 1] == .space || value[high - 1] == .tab { high -= 1 }
                let token = UnsafeRawBufferPointer(rebasing: value[low..<high])
                if Self.equalsIgnoringCase(token, "close") { close = true }
                if Self.equalsIgnoringCase(token, "keep-alive") { keepAlive = true }
                if Self.equalsIgnoringCase(token, "upgrade") { upgrade = true }
                start = end + 1
            }
        case 7 where Self.equalsIgnoringCase(name, "upgrade"):
            upgrade = true
        case 16 where Self.equalsIgnoringCase(name, "content-encoding"):
            if Self.equalsIgnoringCase(value, "gzip") || Self.equalsIgnoringCase(value, "x-gzip") {
                contentEncoding = .gzip
            } else if Self.equalsIgnoringCase(value, "deflate") {
                contentEncoding = .deflate
            } else if !(value.isEmpty || Self.equalsIgnoringCase(value, "identity")) {
                return Failure(.unsupportedMediaType, "Unsupported Content-Encoding (gzip and deflate are accepted)")
            }
        default:
            break
        }
        return nil
    }

    /// Whether `bytes` spell `text` (lowercase ASCII) in any case.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { expected in
            for index in 0..<expected.count where bytes[index] | 0x20 != expected[index] {
                return false
            }
            return true
        }
    }
}
