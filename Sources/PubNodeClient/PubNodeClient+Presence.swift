import Foundation

/// One channel's occupancy in a here-now answer.
public struct HereNowChannel: Sendable, Equatable {
    /// The channel.
    public var channel: String
    /// How many distinct user ids are present.
    public var occupancy: Int
    /// Who is present (empty when uuids were not requested), with their state when requested.
    public var occupants: [HereNowOccupant]
}

/// A user present on a channel.
public struct HereNowOccupant: Sendable, Equatable {
    /// The user id.
    public var uuid: String
    /// Its presence state, when requested and set.
    public var state: JSONValue?
}

extension PubNodeClient {
    private func presence(_ rest: [String]) -> [String] {
        ["v2", "presence", "sub-key", Percent.encode(configuration.subscribeKey)] + rest
    }

    private func groupQuery(_ groups: [String]) -> [(String, String)] {
        groups.isEmpty ? [] : [("channel-group", groups.joined(separator: ","))]
    }

    /// Who is present on `channels` and the member channels of `groups` (the whole keyset when both are empty).
    public func hereNow(on channels: [String], and groups: [String] = [], includeUUIDs: Bool = true,
                        includeState: Bool = false) async throws(PubNodeClientError) -> [String: HereNowChannel] {
        var query = groupQuery(groups)
        if !includeUUIDs { query.append(("disable_uuids", "1")) }
        if includeState { query.append(("state", "1")) }
        let path = channels.isEmpty && groups.isEmpty ? presence([]) : presence(["channel", Percent.list(channels)])
        let answer = try await request(path, query: query)
        if let payload = answer["payload"]?["channels"]?.objectValue {
            var result: [String: HereNowChannel] = [:]
            for (name, entry) in payload { result[name] = Self.hereNowChannel(name, entry) }
            return result
        }
        guard channels.count == 1 else { return [:] }
        return [channels[0]: Self.hereNowChannel(channels[0], answer)]
    }

    private static func hereNowChannel(_ name: String, _ entry: JSONValue) -> HereNowChannel {
        let occupants = (entry["uuids"]?.arrayValue ?? []).compactMap { item -> HereNowOccupant? in
            if let uuid = item.stringValue { return HereNowOccupant(uuid: uuid, state: nil) }
            guard let uuid = item["uuid"]?.stringValue else { return nil }
            return HereNowOccupant(uuid: uuid, state: item["state"])
        }
        return HereNowChannel(channel: name, occupancy: Int(entry["occupancy"]?.intValue ?? 0), occupants: occupants)
    }

    /// The channels where `uuid` (this client's user id by default) is present.
    public func whereNow(uuid: String? = nil) async throws(PubNodeClientError) -> [String] {
        let answer = try await request(presence(["uuid", Percent.encode(uuid ?? configuration.userId)]))
        return answer["payload"]?["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Sets this client's presence state (a JSON object) on `channels` and `groups`; returns it as stored.
    @discardableResult
    public func setPresence(state: some Encodable, on channels: [String], and groups: [String] = []) async throws(PubNodeClientError) -> JSONValue {
        var query = groupQuery(groups)
        query.append(("state", String(decoding: try JSONValue.encode(state), as: UTF8.self)))
        let path = presence(["channel", Percent.list(channels), "uuid", Percent.encode(configuration.userId), "data"])
        return try await request(path, query: query)["payload"] ?? .null
    }

    /// The presence state of `uuid` (this client by default) on each of `channels` and `groups`' channels.
    public func getPresenceState(for uuid: String? = nil, on channels: [String],
                                 and groups: [String] = []) async throws(PubNodeClientError) -> [String: JSONValue] {
        let path = presence(["channel", Percent.list(channels), "uuid", Percent.encode(uuid ?? configuration.userId)])
        let answer = try await request(path, query: groupQuery(groups))
        if let channel = answer["channel"]?.stringValue {
            return [channel: answer["payload"] ?? .object([:])]
        }
        return answer["payload"]?["channels"]?.objectValue ?? [:]
    }
}
