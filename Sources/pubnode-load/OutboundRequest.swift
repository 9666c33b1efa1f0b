import NIOCore
import NIOHTTP1

/// One HTTP/1.1 request, serialized once so that it can be written many times cheaply.
struct OutboundRequest: Sendable {
    /// Request method.
    let method: HTTPMethod
    /// Origin-form request target (path and query).
    let uri: String
    /// The complete request (head and body) as written on the wire.
    let wire: ByteBuffer

    /// Serializes a request; `Host`, `User-Agent` and, for bodies, `Content-Length` are added.
    init(
        method: HTTPMethod, uri: String, hostHeader: String,
        headers: [(String, String)] = [], body: ByteBuffer? = nil
    ) {
        self.method = method
        self.uri = uri
        var out = ByteBuffer()
        out.reserveCapacity(128 + uri.utf8.count + (body?.readableBytes ?? 0))
        out.writeString("\(method.rawValue) \(uri) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: pubnode-load\r\n")
        for (name, value) in headers { out.writeString("\(name): \(value)\r\n") }
        if let body {
            out.writeString("Content-Length: \(body.readableBytes)\r\n\r\n")
            var copy = body
            out.writeBuffer(&copy)
        } else if method == .POST || method == .PUT {
            out.writeString("Content-Length: 0\r\n\r\n")
        } else {
            out.writeString("\r\n")
        }
        wire = out
    }

    /// Short description used in error samples.
    var summary: String { "\(method.rawValue) \(uri)" }
}
