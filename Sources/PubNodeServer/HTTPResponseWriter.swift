import NIOCore
import NIOHTTP1

/// Serializes a whole response (status line, headers, body) into one buffer, written with one
/// `writeAndFlush`: the node's headers are constants, so they are kept as ready bytes instead of
/// going through `HTTPHeaders` and NIO's response encoder on every response.
enum HTTPResponseWriter {
    /// Headers every response carries: JSON type, no caching, CORS for browser SDKs.
    static let standardHeaders: [UInt8] = Array(("Content-Type: application/json; charset=UTF-8\r\n" + commonHeaders).utf8)

    /// Headers every response carries whatever its type.
    private static let commonHeaders =
        "Cache-Control: no-cache\r\n"
            + "Access-Control-Allow-Origin: *\r\n"
            + "Access-Control-Allow-Methods: GET, POST, DELETE, OPTIONS\r\n"
            + "Access-Control-Allow-Headers: Origin, X-Requested-With, Content-Type, Accept, Content-Encoding\r\n"

    private static let okLine: [UInt8] = Array("HTTP/1.1 200 OK\r\n".utf8)

    /// The complete response bytes for `reply`.
    /// - Parameters:
    ///   - minorVersion: the request's HTTP minor version (0 or 1), echoed in the status line.
    ///   - keepAlive: whether the connection stays open; `Connection` is set to match.
    ///   - includeBody: false for `HEAD`, which gets the headers (and length) only.
    static func serialize(_ reply: HTTPReply, minorVersion: Int, keepAlive: Bool, includeBody: Bool = true,
                          allocator: ByteBufferAllocator) -> ByteBuffer {
        var body = reply.body
        var buffer = allocator.buffer(capacity: standardHeaders.count + body.readableBytes + 96)
        if reply.status == .ok, minorVersion == 1 {
            buffer.writeBytes(okLine)
        } else {
            buffer.writeString("HTTP/1.\(minorVersion == 0 ? 0 : 1) \(reply.status.code) \(reply.status.reasonPhrase)\r\n")
        }
        if let type = reply.contentType {
            // Only a plain token survives: a handler's answer cannot inject header lines.
            let safe = type.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? type : "application/octet-stream"
            buffer.writeString("Content-Type: \(safe)\r\n" + commonHeaders)
        } else {
            buffer.writeBytes(standardHeaders)
        }
        if let retryAfter = reply.retryAfter {
            buffer.writeString("Retry-After: \(retryAfter)\r\n")
        }
        for (name, value) in reply.headers {
            buffer.writeString(name + ": " + value + "\r\n")
        }
        buffer.writeString("Content-Length: ")
        buffer.writeString(String(body.readableBytes))
        if !keepAlive {
            buffer.writeString("\r\nConnection: close")
        } else if minorVersion == 0 {
            buffer.writeString("\r\nConnection: keep-alive")
        }
        buffer.writeString("\r\n\r\n")
        if includeBody { buffer.writeBuffer(&body) }
        return buffer
    }
}
