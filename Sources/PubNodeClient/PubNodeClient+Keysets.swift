import Foundation

extension PubNodeClient {
    /// Creates a keyset (tenant) on the node; the answer is the only place, with `rotateSecretKey`,
    /// where its secret key is shown.
    public func createKeyset(adminToken: String, accessManager: Bool = false, rateLimits: KeysetRateLimits? = nil,
                             appContextEvents: Bool = false) async throws(PubNodeClientError) -> Keyset {
        var body: [String: JSONValue] = ["accessManager": .bool(accessManager), "appContextEvents": .bool(appContextEvents)]
        if let rateLimits { body["rateLimits"] = rateLimits.json }
        return try keyset(try await admin(["keysets"], method: "POST", token: adminToken, body: .object(body)))
    }

    /// Every keyset of the node (without secret keys).
    public func listKeysets(adminToken: String) async throws(PubNodeClientError) -> [Keyset] {
        let answer = try await admin(["keysets"], method: "GET", token: adminToken)
        guard let items = answer["keysets"]?.arrayValue else { throw .decoding("unexpected keysets answer \(answer)") }
        return try items.map { item throws(PubNodeClientError) in
            guard let keyset = Keyset(json: item) else { throw .decoding("unexpected keyset \(item)") }
            return keyset
        }
    }

    /// Gives the keyset a new secret key and returns it (in `secretKey`); the old one stops working.
    public func rotateSecretKey(adminToken: String, subscribeKey: String) async throws(PubNodeClientError) -> Keyset {
        try keyset(try await admin(["keysets", Percent.encode(subscribeKey), "rotate"], method: "POST",
                                         token: adminToken))
    }

    /// Disables the keyset: the node refuses its requests until it is enabled again.
    public func disableKeyset(adminToken: String, subscribeKey: String) async throws(PubNodeClientError) -> Keyset {
        try keyset(try await admin(["keysets", Percent.encode(subscribeKey), "disable"], method: "POST",
                                         token: adminToken))
    }

    /// Enables a disabled keyset.
    public func enableKeyset(adminToken: String, subscribeKey: String) async throws(PubNodeClientError) -> Keyset {
        try keyset(try await admin(["keysets", Percent.encode(subscribeKey), "enable"], method: "POST",
                                         token: adminToken))
    }

    /// Deletes the keyset; returns the subscribe key the node deleted.
    @discardableResult
    public func deleteKeyset(adminToken: String, subscribeKey: String) async throws(PubNodeClientError) -> String {
        let answer = try await admin(["keysets", Percent.encode(subscribeKey)], method: "DELETE", token: adminToken)
        return answer["deleted"]?.stringValue ?? subscribeKey
    }

    /// Sends an admin request (`/v1/admin/…`, `Authorization: Bearer`): no keys, `uuid` or signature.
    func admin(_ path: [String], query: [(String, String)] = [], method: String, token: String,
               body: JSONValue? = nil) async throws(PubNodeClientError) -> JSONValue {
        var text = configuration.baseURL + "/v1/admin/" + path.joined(separator: "/")
        if !query.isEmpty {
            text += "?" + query.map { Percent.encode($0.0) + "=" + Percent.encode($0.1) }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw .invalidArgument("cannot form a URL from \(text)") }
        var headers = ["Authorization": "Bearer " + token]
        if body != nil { headers["Content-Type"] = "application/json" }
        let request = TransportRequest(method: method, url: url, headers: headers, body: body?.jsonData,
                                       timeout: configuration.requestTimeout)
        return try await Self.send(request, through: transport)
    }

    private func keyset(_ answer: JSONValue) throws(PubNodeClientError) -> Keyset {
        guard let item = answer["keyset"], let keyset = Keyset(json: item) else {
            throw .decoding("unexpected keyset answer \(answer)")
        }
        return keyset
    }
}
