import NIOCore
import NIOHTTP1
import PubNodeCore

/// A complete response: status and JSON body bytes.
public struct HTTPReply: Sendable {
    /// The HTTP status.
    public var status: HTTPResponseStatus
    /// The body, JSON text unless `contentType` says otherwise.
    public var body: ByteBuffer
    /// The body's media type when it is not JSON (on-request hook answers).
    public var contentType: String?
    /// Seconds for a `Retry-After` header (429 answers), if any.
    public var retryAfter: Int?
    /// Further headers, from the node's own constants only (never from a request).
    public var headers: [(String, String)] = []

    /// Creates a reply.
    public init(status: HTTPResponseStatus = .ok, body: ByteBuffer, contentType: String? = nil) {
        self.status = status
        self.body = body
        self.contentType = contentType
    }

    /// A reply whose body is the given JSON text.
    public static func json(_ text: String, status: HTTPResponseStatus = .ok) -> HTTPReply {
        HTTPReply(status: status, body: ByteBuffer(string: text))
    }

    /// The answer to an accepted publish: `[1,"Sent","<timetoken>"]`.
    public static func sent(_ timetoken: Timetoken) -> HTTPReply {
        var body = ByteBuffer()
        body.reserveCapacity(32)
        body.writeStaticString(HTTPResponseWriter.sentPrefix)
        timetoken.withDecimalDigits { _ = body.writeBytes($0) }
        body.writeStaticString(HTTPResponseWriter.sentSuffix)
        return HTTPReply(body: body)
    }

    /// PubNub's object-shaped success for management calls.
    static func ok(service: String, extra: String = "") -> HTTPReply {
        .json(#"{"status":200,"message":"OK","service":"\#(service)","error":false\#(extra)}"#)
    }
}
