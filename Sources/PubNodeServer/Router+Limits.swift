import PubNodeCore

extension Router {
    /// `GET /v1/admin/limits`, behind `Authorization: Bearer <adminToken>`: the per-client limits
    /// and their counters (`ClientLimits`).
    func limitsAdmin(_ request: PubNubRequest) -> RouteAction {
        answering(.object(service: "Limits")) { () throws(PubNodeError) in
            try node.authorizeAdmin(credential: Self.bearer(request.headers["authorization"]))
            guard request.method == .GET, request.segments.count == 3 else { return Self.noSuchEndpoint(service: "Limits") }
            let stats = clientLimits.snapshot()
            let clients = #"{"maxConnections":\#(stats.maxConnections),"requestsPerSecond":\#(Self.number(stats.requestsPerSecond)),"#
                + #""trackedAddresses":\#(stats.trackedAddresses),"refusedConnections":\#(stats.refusedConnections),"#
                + #""refusedRequests":\#(stats.refusedRequests)}"#
            return .reply(.json(#"{"status":200,"service":"Limits","clients":\#(clients)}"#))
        }
    }

    /// A rate as JSON: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
