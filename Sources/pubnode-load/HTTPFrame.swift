/// Framing of one HTTP/1.x response found at the start of a byte buffer.
struct HTTPFrame {
    /// Status code.
    var status: Int
    /// Byte range of the header lines (after the status line, before the blank line).
    var headers: Range<Int>
    /// Byte ranges of the body (one range, or one per chunk).
    var body: [Range<Int>]
    /// Bytes taken by the whole response.
    var length: Int
    /// Whether the connection stays open.
    var keepAlive: Bool

    /// Outcome of parsing.
    enum Result {
        /// A complete response.
        case complete(HTTPFrame)
        /// An interim 1xx response of this many bytes, to be skipped.
        case interim(Int)
        /// The response is not complete yet.
        case needMore
        /// The bytes are not a valid response.
        case invalid(String)
    }

    /// Parses the response at the start of `raw`.
    static func parse(_ raw: UnsafeRawBufferPointer, atEOF: Bool) -> Result {
        guard let headEnd = find(crlfcrlf, in: raw, from: 0) else {
            return raw.count > HTTPReplyDecoder.maxHeadBytes ? .invalid("head too large") : .needMore
        }
        let bodyStart = headEnd + 4
        guard let statusEnd = find(crlf, in: raw, from: 0) else { return .invalid("no status line") }
        guard statusEnd >= 12, raw[0] == 0x48, raw[1] == 0x54, raw[2] == 0x54, raw[3] == 0x50,
            raw[4] == 0x2F, raw[5] == 0x31, raw[6] == 0x2E, raw[8] == 0x20,
            let status = HTTPBytes.decimal(UnsafeRawBufferPointer(rebasing: raw[9..<12]))
        else { return .invalid("bad status line") }
        let http11 = raw[7] == 0x31

        var contentLength: Int?
        var chunked = false
        var close = !http11
        let headers = min(statusEnd + 2, headEnd)..<headEnd
        var lineStart = headers.lowerBound
        while lineStart < headers.upperBound {
            let lineEnd = find(crlf, in: raw, from: lineStart).map { min($0, headers.upperBound) } ?? headers.upperBound
            let line = UnsafeRawBufferPointer(rebasing: raw[lineStart..<lineEnd])
            if let value = HTTPBytes.value(of: contentLengthName, inLine: line) {
                guard let number = HTTPBytes.decimal(value) else { return .invalid("bad Content-Length") }
                contentLength = number
            } else if let value = HTTPBytes.value(of: transferEncodingName, inLine: line) {
                chunked = HTTPBytes.hasToken(chunkedToken, in: value)
            } else if let value = HTTPBytes.value(of: connectionName, inLine: line) {
                if HTTPBytes.hasToken(closeToken, in: value) { close = true }
                if HTTPBytes.hasToken(keepAliveToken, in: value) { close = false }
            }
            lineStart = lineEnd + 2
        }

        if status >= 100, status < 200, status != 101 { return .interim(bodyStart) }
        func frame(_ body: [Range<Int>], _ length: Int, keepAlive: Bool) -> Result {
            .complete(HTTPFrame(status: status, headers: headers, body: body, length: length, keepAlive: keepAlive))
        }
        if status == 204 || status == 304 { return frame([bodyStart..<bodyStart], bodyStart, keepAlive: !close) }
        if chunked { return parseChunks(raw, from: bodyStart) { frame($0, $1, keepAlive: !close) } }
        if let contentLength {
            guard contentLength <= HTTPReplyDecoder.maxBodyBytes else { return .invalid("body too large") }
            let end = bodyStart + contentLength
            return raw.count >= end ? frame([bodyStart..<end], end, keepAlive: !close) : .needMore
        }
        guard atEOF else {
            return raw.count - bodyStart > HTTPReplyDecoder.maxBodyBytes ? .invalid("body too large") : .needMore
        }
        return frame([bodyStart..<raw.count], raw.count, keepAlive: false)
    }

    /// Parses a chunked body starting at `start`; `done` builds the result from chunk ranges and total length.
    private static func parseChunks(
        _ raw: UnsafeRawBufferPointer, from start: Int, _ done: ([Range<Int>], Int) -> Result
    ) -> Result {
        var chunks: [Range<Int>] = []
        var position = start
        var total = 0
        while true {
            guard let sizeEnd = find(crlf, in: raw, from: position) else { return .needMore }
            guard let size = HTTPBytes.hexadecimal(UnsafeRawBufferPointer(rebasing: raw[position..<sizeEnd])) else {
                return .invalid("bad chunk size")
            }
            let dataStart = sizeEnd + 2
            if size == 0 {
                if raw.count >= dataStart + 2, raw[dataStart] == 0x0D, raw[dataStart + 1] == 0x0A {
                    return done(chunks.isEmpty ? [dataStart..<dataStart] : chunks, dataStart + 2)
                }
                guard let trailerEnd = find(crlfcrlf, in: raw, from: dataStart) else { return .needMore }
                return done(chunks.isEmpty ? [dataStart..<dataStart] : chunks, trailerEnd + 4)
            }
            total += size
            guard total <= HTTPReplyDecoder.maxBodyBytes else { return .invalid("body too large") }
            guard raw.count >= dataStart + size + 2 else { return .needMore }
            chunks.append(dataStart..<(dataStart + size))
            position = dataStart + size + 2
        }
    }

    /// Index of the first occurrence of `needle` at or after `from`.
    private static func find(_ needle: [UInt8], in raw: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard raw.count >= needle.count else { return nil }
        var index = from
        let last = raw.count - needle.count
        while index <= last {
            if raw[index] == needle[0] {
                var matched = 1
                while matched < needle.count, raw[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }

    /// `\r\n`.
    private static let crlf: [UInt8] = [0x0D, 0x0A]
    /// `\r\n\r\n`.
    private static let crlfcrlf: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
    /// Lower-case header names and tokens.
    private static let contentLengthName = Array("content-length".utf8)
    /// `transfer-encoding`.
    private static let transferEncodingName = Array("transfer-encoding".utf8)
    /// `connection`.
    private static let connectionName = Array("connection".utf8)
    /// `chunked`.
    private static let chunkedToken = Array("chunked".utf8)
    /// `close`.
    private static let closeToken = Array("close".utf8)
    /// `keep-alive`.
    private static let keepAliveToken = Array("keep-alive".utf8)
}
