import NIOCore
import PubNodeCore

extension Router {
    /// The tenants API, behind `Authorization: Bearer <adminToken>`:
    /// - `GET /v1/admin/keysets`: every keyset, secrets left out;
    /// - `POST /v1/admin/keysets` (optional body `{"accessManager":…,"appContextEvents":…,"publishKey":…,
    ///   "subscribeKey":…,"rateLimits":{"publishesPerSecond":…,"requestsPerSecond":…}}`):
    ///   creates one and answers its three keys, the only time the secret is shown with `rotate`;
    /// - `POST /v1/admin/keysets/{sub}/rotate|disable|enable`;
    /// - `DELETE /v1/admin/keysets/{sub}`: deletes it with everything it holds.
    func keysetsAdmin(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        let credential = Self.bearer(request.headers["authorization"])
        let action: KeysetAdminRequest.Action
        do throws(PubNodeError) {
            switch (request.method, s.count, s.count == 5 ? s[4] : "") {
            case (.GET, 3, _): action = .list
            case (.POST, 3, _): action = .create(try KeysetSpec(json: request.body.map { Array($0.readableBytesView) } ?? []))
            case (.POST, 5, "rotate"): action = .rotate(subscribeKey: s[3])
            case (.POST, 5, "disable"): action = .disable(subscribeKey: s[3], true)
            case (.POST, 5, "enable"): action = .disable(subscribeKey: s[3], false)
            case (.DELETE, 4, _): action = .delete(subscribeKey: s[3])
            default: action = .unknown
            }
        } catch {
            return refuse(error, .object(service: "Keysets"))
        }
        let node = self.node
        return later(.object(service: "Keysets")) { () throws(PubNodeError) in
            switch try await node.administerKeysets(KeysetAdminRequest(action: action, credential: credential)) {
            case .keysets(let list):
                return .json(#"{"status":200,"service":"Keysets","keysets":[\#(list.map(Self.render).joined(separator: ","))]}"#)
            case .keyset(let info):
                return .json(#"{"status":200,"service":"Keysets","keyset":\#(Self.render(info))}"#)
            case .deleted(let subscribeKey):
                return .json(#"{"status":200,"service":"Keysets","deleted":\#(JSONText.string(subscribeKey))}"#)
            }
        }
    }

    private static func render(_ info: KeysetInfo) -> String {
        let keyset = info.keyset
        var fields = [
            #""publishKey":\#(JSONText.string(keyset.publishKey))"#,
            #""subscribeKey":\#(JSONText.string(keyset.subscribeKey))"#,
        ]
        if let secret = keyset.secretKey { fields.append(#""secretKey":\#(JSONText.string(secret))"#) }
        fields += [#""accessManager":\#(keyset.accessManager)"#, #""appContextEvents":\#(keyset.appContextEvents)"#,
                   #""disabled":\#(info.disabled)"#,
                   #""origin":"\#(info.origin.rawValue)""#]
        var limits: [String] = []
        if let rate = keyset.rateLimits?.publishesPerSecond { limits.append(#""publishesPerSecond":\#(Self.number(rate))"#) }
        if let rate = keyset.rateLimits?.requestsPerSecond { limits.append(#""requestsPerSecond":\#(Self.number(rate))"#) }
        fields.append(#""rateLimits":{\#(limits.joined(separator: ","))}"#)
        var counters: [String] = []
        for (name, stats) in [("requests", info.requests), ("publishes", info.publishes)] {
            guard let stats else { continue }
            counters.append(#""\#(name)":{"perSecond":\#(Self.number(stats.perSecond)),"admitted":\#(stats.admitted),"refused":\#(stats.refused)}"#)
        }
        // Totals first: requests admitted (or publishes, when only they are limited) and every refusal.
        let admitted = (info.requests ?? info.publishes)?.admitted ?? 0
        let refused = (info.requests?.refused ?? 0) + (info.publishes?.refused ?? 0)
        counters.insert(#""admitted":\#(admitted),"refused":\#(refused)"#, at: 0)
        fields.append(#""counters":{\#(counters.joined(separator: ","))}"#)
        return "{" + fields.joined(separator: ",") + "}"
    }
}
