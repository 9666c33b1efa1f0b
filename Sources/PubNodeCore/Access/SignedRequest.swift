/// What a request signature covers, as the request arrived: enough for the node to verify a
/// PubNub signature (`signature=` and `timestamp=` in the query) without knowing the transport.
///
/// The transport builds one only when the query carries `signature`, so unsigned requests pay
/// nothing for it.
public struct SignedRequest: Sendable, Equatable {
    /// The HTTP method (`GET`, `POST`, `DELETE`, `PATCH`).
    public var method: String
    /// The path exactly as sent, percent-escapes and all.
    public var path: String
    /// The query exactly as sent, without the `?`.
    public var rawQuery: String
    /// The body as signed (decompressed), if any.
    public var body: [UInt8]?

    /// Describes a signed request.
    public init(method: String, path: String, rawQuery: String, body: [UInt8]? = nil) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.body = body
    }
}
