import NIOCore
import PubNodeCore

extension RedisPresence {
    /// Here-now for `channels`, in that order, as `PresenceTracker.occupancy(of:query:)` answers:
    /// the count of unexpired entries and, when asked, the uuids sorted and paged by the query's
    /// offset and limit, each with its state when asked. One atomic read per channel, pipelined;
    /// states are read after the uuids.
    public func hereNow(channels: [String], query: OccupancyQuery, now: Int64? = nil) async throws -> [ChannelOccupancy] {
        try await occupancy(of: try Self.bounded(channels), query: query, now: now)
    }

    /// Here-now for every occupied channel of the keyset, sorted by name, found through the
    /// channel index (no `SCAN`).
    public func hereNow(query: OccupancyQuery, now: Int64? = nil) async throws -> [ChannelOccupancy] {
        let channels = try await live(indexKey, now: now).sorted()
        var result: [ChannelOccupancy] = []
        var start = 0
        while start < channels.count {
            let end = min(start + Self.maxChannelsPerCall, channels.count)
            result += try await occupancy(of: Array(channels[start..<end]), query: query, now: now).filter { $0.occupancy > 0 }
            start = end
        }
        return result
    }

    /// The channels `uuid` is present on (unexpired entries), sorted.
    public func whereNow(uuid: String, now: Int64? = nil) async throws -> [String] {
        try await live(uuidKey(uuid), now: now).sorted()
    }

    private func occupancy(of channels: [String], query: OccupancyQuery, now: Int64?) async throws -> [ChannelOccupancy] {
        let mode: RESPArgument = query.includeUUIDs ? "list" : "count"
        let reads = channels.map { channel in
            Self.liveScript.run(on: connection, keys: [.text(channelKey(channel))], arguments: [Self.nowArgument(now), mode])
        }
        var result: [ChannelOccupancy] = []
        result.reserveCapacity(channels.count)
        for (channel, read) in zip(channels, reads) {
            let reply = try await read.get()
            guard query.includeUUIDs else {
                guard let count = reply.int else { throw RedisError.unexpectedReply("here-now answered \(reply)") }
                result.append(ChannelOccupancy(channel: channel, occupancy: Int(count)))
                continue
            }
            let uuids = try Self.strings(reply)
            var page = uuids.sorted().dropFirst(max(0, query.offset))
            if let limit = query.limit { page = page.prefix(max(0, limit)) }
            result.append(ChannelOccupancy(channel: channel, occupancy: uuids.count,
                                           occupants: page.map { ChannelOccupancy.Occupant(uuid: $0) }))
        }
        guard query.includeState else { return result }
        let lookups = result.map { entry in
            entry.occupants.map { connection.sendCommand(["HGET", .text(stateKey($0.uuid)), .text(entry.channel)]) }
        }
        for (index, futures) in lookups.enumerated() {
            for (slot, future) in futures.enumerated() {
                result[index].occupants[slot].state = try await future.get().bytes.map { Array(buffer: $0) }
            }
        }
        return result
    }

    /// The members of a zset scored by expiry whose expiry is after now.
    private func live(_ key: String, now: Int64?) async throws -> [String] {
        try Self.strings(try await Self.liveScript.run(on: connection, keys: [.text(key)],
                                                        arguments: [Self.nowArgument(now), "list"]).get())
    }

    static func nowArgument(_ now: Int64?) -> RESPArgument { now.map { .integer($0) } ?? .text("") }

    private static func strings(_ reply: RESPValue) throws -> [String] {
        guard let values = reply.array else { throw RedisError.unexpectedReply("expected an array, got \(reply)") }
        return try values.map { value in
            guard let text = value.string else { throw RedisError.unexpectedReply("expected a string, got \(value)") }
            return text
        }
    }
}
