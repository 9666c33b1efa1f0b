import Foundation

extension PubNodeClient {
    /// `/v2/objects/{sub_key}/` followed by `rest`.
    func objectsPath(_ rest: [String]) -> [String] {
        ["v2", "objects", Percent.encode(configuration.subscribeKey)] + rest
    }

    /// `If-Match` when an entity tag is given.
    func etagHeaders(_ etag: String?, json: Bool) -> [String: String] {
        var headers: [String: String] = json ? ["Content-Type": "application/json"] : [:]
        if let etag { headers["If-Match"] = etag }
        return headers
    }

    /// The user metadata in an answer's `data`.
    private func uuidMetadata(_ answer: JSONValue) throws(PubNodeClientError) -> UUIDMetadata {
        guard let data = answer["data"], let metadata = UUIDMetadata(json: data) else {
            throw .decoding("unexpected uuid metadata answer \(answer)")
        }
        return metadata
    }

    /// A page of every user's metadata.
    public func allUUIDMetadata(_ options: ObjectsListOptions = ObjectsListOptions()) async throws(PubNodeClientError) -> ObjectsList<UUIDMetadata> {
        let answer = try await request(objectsPath(["uuids"]), query: try options.query)
        return try ObjectsList(answer) { UUIDMetadata(json: $0) }
    }

    /// The metadata of `uuid` (this client's user id when nil).
    public func fetchUUIDMetadata(_ uuid: String? = nil,
                                  include: ObjectsInclude = .standard) async throws(PubNodeClientError) -> UUIDMetadata {
        let id = uuid ?? configuration.userId
        return try uuidMetadata(try await request(objectsPath(["uuids", Percent.encode(id)]), query: include.query))
    }

    /// Sets the fields `metadata` gives for its user; with `ifMatchesEtag` only when the stored
    /// version still has that entity tag (else HTTP 412). Returns the stored metadata.
    @discardableResult
    public func setUUIDMetadata(_ metadata: UUIDMetadata, include: ObjectsInclude = .standard,
                                ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> UUIDMetadata {
        let answer = try await request(objectsPath(["uuids", Percent.encode(metadata.id)]), method: "PATCH",
                                       query: include.query, body: metadata.body.jsonData,
                                       headers: etagHeaders(ifMatchesEtag, json: true))
        return try uuidMetadata(answer)
    }

    /// Removes the metadata of `uuid` (this client's user id when nil); returns the id removed.
    @discardableResult
    public func removeUUIDMetadata(_ uuid: String? = nil, ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> String {
        let id = uuid ?? configuration.userId
        _ = try await request(objectsPath(["uuids", Percent.encode(id)]), method: "DELETE",
                              headers: etagHeaders(ifMatchesEtag, json: false))
        return id
    }
}
