import Foundation
import PubNodeAccessWire

/// Forms the node's URLs: the base, percent-encoded path segments, the common query parameters
/// and, with a secret key, the request signature.
struct RequestBuilder: Sendable {
    let configuration: PubNodeConfiguration
    /// The token sent as `auth` (the client's current one, which may differ from the configuration's).
    var token: String?
    /// Unix seconds, for the `timestamp` of signed requests.
    var wallClock: @Sendable () -> Double

    init(configuration: PubNodeConfiguration, token: String? = nil,
         wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.configuration = configuration
        self.token = token ?? configuration.authToken
        self.wallClock = wallClock
    }

    /// A request for `path` (segments already percent-encoded) with `query` plus `uuid`, `auth` and
    /// `pnsdk`, signed when a secret key is configured; `includeAuth: false` leaves `auth` out.
    func request(_ path: [String], method: String = "GET", query: [(String, String)], body: Data? = nil,
                 headers: [String: String] = [:], timeout: Double? = nil,
                 includeAuth: Bool = true) throws(PubNodeClientError) -> TransportRequest {
        var items = query
        items.append(("uuid", configuration.userId))
        if includeAuth, let token { items.append(("auth", token)) }
        items.append(("pnsdk", configuration.sdkName))
        let pathText = "/" + path.joined(separator: "/")
        if let secret = configuration.secretKey {
            items.append(("timestamp", String(UInt64(max(0, wallClock())))))
            items.append(("signature", Self.signature(secret: secret, publishKey: configuration.publishKey ?? "",
                                                      method: method, path: pathText, query: items, body: body)))
        }
        let text = configuration.baseURL + pathText + "?"
            + items.map { "\(Percent.encode($0.0))=\(Percent.encode($0.1))" }.joined(separator: "&")
        guard let url = URL(string: text) else { throw .invalidArgument("cannot form a URL from \(text)") }
        return TransportRequest(method: method, url: url, headers: headers, body: body,
                                timeout: timeout ?? configuration.requestTimeout)
    }

    /// The v2 signature of a request whose query values (as sent, before percent-encoding) are
    /// `query`. A `POST` publish is signed as the JavaScript SDK does: method `GET`, no body.
    static func signature(secret: String, publishKey: String, method: String, path: String,
                          query: [(String, String)], body: Data?) -> String {
        let isPostPublish = method == "POST" && path.hasPrefix("/publish/")
        return RequestSignature.v2(
            secret: secret, method: isPostPublish ? "GET" : method, publishKey: publishKey, path: path,
            canonicalQuery: RequestSignature.canonicalQuery(query),
            body: isPostPublish ? nil : body.map { Array($0) })
    }
}
