import NIOCore

/// A complete HTTP/1.x response as received by the client.
///
/// Header fields are kept as the raw header block and looked up on demand, which keeps the
/// per-response cost low: most responses are only checked for their status and body.
struct HTTPReply {
    /// Numeric status code.
    let statusCode: Int
    /// Raw header lines (everything after the status line, without the final blank line).
    let headerBlock: ByteBuffer
    /// Response body (de-chunked if it was chunked).
    let body: ByteBuffer
    /// Whether the connection may carry another request.
    let keepAlive: Bool

    /// True for 2xx responses.
    var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// Value of the first header named `name` (case-insensitive), without surrounding spaces.
    func header(_ name: String) -> String? {
        let wanted = Array(name.utf8)
        return headerBlock.withUnsafeReadableBytes { raw -> String? in
            var lineStart = 0
            while lineStart < raw.count {
                var lineEnd = lineStart
                while lineEnd < raw.count, raw[lineEnd] != 0x0A { lineEnd += 1 }
                let line = UnsafeRawBufferPointer(rebasing: raw[lineStart..<lineEnd])
                if let value = HTTPBytes.value(of: wanted, inLine: line) {
                    return String(decoding: value, as: UTF8.self)
                }
                lineStart = lineEnd + 1
            }
            return nil
        }
    }

    /// Body decoded as UTF-8 (lossy), for checks and error samples.
    var bodyText: String { String(decoding: body.readableBytesView, as: UTF8.self) }

    /// Status plus the first characters of the body, for error samples.
    func summary(limit: Int = 160) -> String {
        var text = bodyText
        if text.count > limit { text = String(text.prefix(limit)) + "…" }
        return "HTTP \(statusCode) body=\(text)"
    }
}
