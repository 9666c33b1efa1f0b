import NIOCore
import NIOHTTP1

/// A complete response: status and JSON body bytes.
public struct HTTPReply: Sendable {
    /// The HTTP status.
    public var status: HTTPResponseStatus
    /// The body, JSON text.
    public var body: ByteBuffer

    /// Creates a reply.
    public init(status: HTTPResponseStatus = .ok, body: ByteBuffer) {
        self.status = status
        self.body = body
    }

    /// A reply whose body is the given JSON text.
    public static func json(_ text: String, status: HTTPResponseStatus = .ok) -> HTTPReply {
        HTTPReply(status: status, body: ByteBuffer(string: text))
    }

    /// PubNub's object-shaped success for management calls.
    static func ok(service: String, extra: String = "") -> HTTPReply {
        .json(#"{"status":200,"message":"OK","service":"\#(service)","error":false\#(extra)}"#)
    }
}
