import Foundation

extension PubNodeClient {
    private func groupPath(_ rest: [String]) -> [String] {
        ["v1", "channel-registration", "sub-key", Percent.encode(configuration.subscribeKey), "channel-group"] + rest
    }

    /// Adds `channels` to `group` (creating it).
    public func add(channels: [String], to group: String) async throws(PubNodeClientError) {
        _ = try await request(groupPath([Percent.encode(group)]), query: [("add", channels.joined(separator: ","))])
    }

    /// Removes `channels` from `group`.
    public func remove(channels: [String], from group: String) async throws(PubNodeClientError) {
        _ = try await request(groupPath([Percent.encode(group)]), query: [("remove", channels.joined(separator: ","))])
    }

    /// The channels of `group` (`[]` for an unknown group).
    public func listChannels(for group: String) async throws(PubNodeClientError) -> [String] {
        let answer = try await request(groupPath([Percent.encode(group)]))
        return answer["payload"]?["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Every channel group of the subscribe key.
    public func listChannelGroups() async throws(PubNodeClientError) -> [String] {
        let answer = try await request(groupPath([]))
        return answer["payload"]?["groups"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Deletes `group`.
    public func remove(channelGroup group: String) async throws(PubNodeClientError) {
        _ = try await request(groupPath([Percent.encode(group), "remove"]))
    }
}
