import Foundation

/// Forms the node's URLs: the base, percent-encoded path segments and the common query parameters.
struct RequestBuilder: Sendable {
    let configuration: PubNodeConfiguration

    /// A request for `path` (segments already percent-encoded) with `query` plus `uuid`, `auth` and `pnsdk`.
    func request(_ path: [String], method: String = "GET", query: [(String, String)], body: Data? = nil,
                 headers: [String: String] = [:], timeout: Double? = nil) throws(PubNodeClientError) -> TransportRequest {
        var items = query
        items.append(("uuid", configuration.userId))
        if let token = configuration.authToken { items.append(("auth", token)) }
        items.append(("pnsdk", "PubNodeClient-Swift/1.0"))
        let text = configuration.baseURL + "/" + path.joined(separator: "/") + "?"
            + items.map { "\(Percent.encode($0.0))=\(Percent.encode($0.1))" }.joined(separator: "&")
        guard let url = URL(string: text) else { throw .invalidArgument("cannot form a URL from \(text)") }
        return TransportRequest(method: method, url: url, headers: headers, body: body,
                                timeout: timeout ?? configuration.requestTimeout)
    }
}
