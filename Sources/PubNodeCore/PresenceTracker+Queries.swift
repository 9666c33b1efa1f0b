extension PresenceTracker {
    /// The channels `uuid` is present on, sorted (where-now).
    public func channels(of uuid: String) -> [String] {
        guard let user = users.get(uuid) else { return [] }
        return user.inner.withLock { inner in
            inner.entries.compactMap { $0.value.present ? $0.key : nil }
        }.sorted()
    }

    /// `uuid`'s state on each of `channels` that has one.
    public func states(of uuid: String, on channels: [String]) -> [String: [UInt8]] {
        guard let user = users.get(uuid) else { return [:] }
        return user.inner.withLock { inner in
            var result: [String: [UInt8]] = [:]
            for channel in channels {
                if let state = inner.entries[channel]?.state { result[channel] = state }
            }
            return result
        }
    }

    /// The occupancy of each channel in `channels`, in that order (here-now).
    public func occupancy(of channels: [String], query: OccupancyQuery = OccupancyQuery()) -> [ChannelOccupancy] {
        channels.map { channel in
            // Copying the set under the lock only retains its storage; sorting happens outside.
            let occupants = rooms.get(channel)?.inner.withLock { $0.occupants } ?? []
            var result = ChannelOccupancy(channel: channel, occupancy: occupants.count)
            guard query.includeUUIDs, !occupants.isEmpty else { return result }
            var page = occupants.sorted().dropFirst(max(0, query.offset))
            if let limit = query.limit { page = page.prefix(max(0, limit)) }
            result.occupants = page.map { uuid in
                guard query.includeState else { return ChannelOccupancy.Occupant(uuid: uuid) }
                return ChannelOccupancy.Occupant(uuid: uuid, state: state(of: uuid, on: channel))
            }
            return result
        }
    }

    /// Every channel with at least one occupant, sorted (global here-now).
    public func occupiedChannels() -> [String] {
        rooms.values().compactMap { room in
            room.inner.withLock { $0.occupants.isEmpty ? nil : room.name }
        }.sorted()
    }

    /// Number of uuids with a record (for metrics and tests).
    public var userCount: Int { users.count }

    /// Number of channels with a record (for metrics and tests).
    public var channelCount: Int { rooms.count }

    private func state(of uuid: String, on channel: String) -> [UInt8]? {
        users.get(uuid)?.inner.withLock { $0.entries[channel]?.state }
    }
}
