import Foundation

extension PubNodeClient {
    /// The channels `uuid` (this client's user id when nil) is a member of.
    public func fetchMemberships(uuid: String? = nil,
                                 _ options: ObjectsListOptions = ObjectsListOptions()) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let id = uuid ?? configuration.userId
        let answer = try await request(objectsPath(["uuids", Percent.encode(id), "channels"]), query: try options.query)
        return try ObjectsList(answer) { Membership(json: $0, uuid: id) }
    }

    /// Adds or updates memberships of `uuid` (this client's user id when nil) in `channels`
    /// (each membership's `channel`, `custom`, `status` and `type`); returns a page of its memberships.
    @discardableResult
    public func setMemberships(uuid: String? = nil, channels: [Membership],
                               _ options: ObjectsListOptions = ObjectsListOptions(),
                               ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let id = uuid ?? configuration.userId
        let items = channels.map { Self.entry(side: "channel", id: $0.channel, of: $0) }
        return try await changeMemberships(id, set: items, delete: [], options, ifMatchesEtag)
    }

    /// Removes the memberships of `uuid` (this client's user id when nil) in `channels`.
    @discardableResult
    public func removeMemberships(uuid: String? = nil, channels: [String],
                                  _ options: ObjectsListOptions = ObjectsListOptions(),
                                  ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let id = uuid ?? configuration.userId
        let items = channels.map { Self.entry(side: "channel", id: $0, of: nil) }
        return try await changeMemberships(id, set: [], delete: items, options, ifMatchesEtag)
    }

    /// The members of `channel`.
    public func fetchMembers(channel: String,
                             _ options: ObjectsListOptions = ObjectsListOptions()) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let answer = try await request(objectsPath(["channels", Percent.encode(channel), "uuids"]), query: try options.query)
        return try ObjectsList(answer) { Membership(json: $0, channel: channel) }
    }

    /// Adds or updates members of `channel` (each membership's `uuid`, `custom`, `status` and
    /// `type`); returns a page of its members.
    @discardableResult
    public func setMembers(channel: String, uuids: [Membership], _ options: ObjectsListOptions = ObjectsListOptions(),
                           ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let items = uuids.map { Self.entry(side: "uuid", id: $0.uuid, of: $0) }
        return try await changeMembers(channel, set: items, delete: [], options, ifMatchesEtag)
    }

    /// Removes the members `uuids` of `channel`.
    @discardableResult
    public func removeMembers(channel: String, uuids: [String], _ options: ObjectsListOptions = ObjectsListOptions(),
                              ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let items = uuids.map { Self.entry(side: "uuid", id: $0, of: nil) }
        return try await changeMembers(channel, set: [], delete: items, options, ifMatchesEtag)
    }

    private func changeMemberships(_ uuid: String, set: [JSONValue], delete: [JSONValue], _ options: ObjectsListOptions,
                                   _ etag: String?) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let body: JSONValue = ["set": .array(set), "delete": .array(delete)]
        let answer = try await request(objectsPath(["uuids", Percent.encode(uuid), "channels"]), method: "PATCH",
                                       query: try options.query, body: body.jsonData, headers: etagHeaders(etag, json: true))
        return try ObjectsList(answer) { Membership(json: $0, uuid: uuid) }
    }

    private func changeMembers(_ channel: String, set: [JSONValue], delete: [JSONValue], _ options: ObjectsListOptions,
                               _ etag: String?) async throws(PubNodeClientError) -> ObjectsList<Membership> {
        let body: JSONValue = ["set": .array(set), "delete": .array(delete)]
        let answer = try await request(objectsPath(["channels", Percent.encode(channel), "uuids"]), method: "PATCH",
                                       query: try options.query, body: body.jsonData, headers: etagHeaders(etag, json: true))
        return try ObjectsList(answer) { Membership(json: $0, channel: channel) }
    }

    /// `{"<side>":{"id":…},"custom":…,"status":…,"type":…}` for a set or delete list.
    static func entry(side: String, id: String, of membership: Membership?) -> JSONValue {
        var fields: [String: JSONValue] = [side: ["id": .string(id)]]
        fields["custom"] = membership?.custom
        fields["status"] = membership?.status.map(JSONValue.string)
        fields["type"] = membership?.type.map(JSONValue.string)
        return .object(fields)
    }
}
