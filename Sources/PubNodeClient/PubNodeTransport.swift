import Foundation

/// One HTTP request as the client sends it.
public struct TransportRequest: Sendable, Equatable {
    /// `GET`, `POST` or `DELETE`.
    public var method: String
    /// The full URL, already percent-encoded.
    public var url: URL
    /// Header fields.
    public var headers: [String: String]
    /// The body, if any.
    public var body: Data?
    /// Seconds before the request is abandoned.
    public var timeout: Double

    /// A request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Double) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP answer.
public struct TransportResponse: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The body.
    public var body: Data
    /// Header fields, names in lower case.
    public var headers: [String: String]

    /// An answer; header names are stored in lower case.
    public init(status: Int, body: Data, headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}

/// Sends HTTP requests for the client. Supply your own to use another HTTP stack.
///
/// Implementations throw when no answer arrived (connection refused, reset, timeout); an answer
/// with any status is returned, not thrown. They should honour task cancellation.
public protocol PubNodeTransport: Sendable {
    /// Sends `request` and returns the node's answer.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
