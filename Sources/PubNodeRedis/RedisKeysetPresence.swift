import PubNodeCore

/// One subscribe key's presence in a cluster. Heartbeats and leaves (every subscribe poll
/// refreshes presence) are written without waiting; queries and state changes are answered
/// through `shared`, from Redis.
struct RedisKeysetPresence: KeysetPresence, SharedPresence {
    let hub: ChannelHub
    let store: RedisPresenceStore

    var settings: PresenceSettings { hub.presenceSettings }
    var shared: (any SharedPresence)? { self }
    private var subscribeKey: String { hub.subscribeKey }
    private var cluster: RedisCluster { store.broker.cluster }
    private var link: RedisLink { store.broker.link }

    func heartbeat(_ update: PresenceUpdate) throws(PubNodeError) {
        let settings = self.settings
        let keyed = try update.state.map { bytes throws(PubNodeError) in try PresenceState.keyed(bytes, limit: settings.maxStateBytes) } ?? [:]
        let timeout = settings.timeout(requested: update.timeoutSeconds)
        let target = (update.channels + ["\u{0}"] + update.groups).joined(separator: ",") + "\u{0}\(timeout)"
        let interval = UInt64(max(timeout, 4)) * 250_000_000
        guard !keyed.isEmpty || store.due(subscribeKey: subscribeKey, uuid: update.uuid, target: target,
                                          now: cluster.clock.nowNanoseconds(), interval: interval) else { return }
        // While Redis is away presence is not refreshed; the next poll after it returns does.
        guard link.isUp else { return store.forget(subscribeKey: subscribeKey, uuid: update.uuid) }
        run { () async throws(PubNodeError) in
            let (channels, membersByGroup) = try await expand(update.channels, update.groups)
            var states: [String: [UInt8]] = [:]
            for (group, members) in membersByGroup {
                guard let state = keyed[group] else { continue }
                for member in members { states[member] = state ?? [] }
            }
            for channel in channels {
                if let state = keyed[channel] { states[channel] = state ?? [] }
            }
            let presence = try redis()
            return try await Self.refusing { try await presence.heartbeat(uuid: update.uuid, channels: channels, timeoutSeconds: timeout, states: states) }
        }
    }

    func leave(uuid: String, channels: [String], groups: [String]) {
        store.forget(subscribeKey: subscribeKey, uuid: uuid)
        let (cluster, link, subscribeKey) = (cluster, link, subscribeKey)
        run { () async throws(PubNodeError) in
            let presence = try redis()
            let all = try await expand(channels, groups).channels
            let events = try await Self.refusing { try await presence.leave(uuid: uuid, channels: all) }
            // Every node forgets when it last wrote this uuid, so a poll it serves next joins again.
            _ = try? await link.connection().send(["PUBLISH", .text(cluster.controlChannel),
                                                   .text(cluster.leftNotice(subscribeKey, uuid))])
            return events
        }
    }

    func setState(uuid: String, channels: [String], groups: [String], state: [UInt8]) async throws(PubNodeError) -> [UInt8]? {
        let stored = try PresenceState.object(state, limit: settings.maxStateBytes)
        let presence = try redis()
        let all = try await expand(channels, groups).channels
        announce(try await Self.refusing { try await presence.setState(uuid: uuid, channels: all, state: state) })
        return stored
    }

    func state(of uuid: String, channels: [String], groups: [String]) async throws(PubNodeError) -> [(channel: String, state: [UInt8]?)] {
        let presence = try redis()
        let named = Set(channels)
        let all = try await expand(channels, groups).channels
        let states = try await Self.refusing { try await presence.state(uuid: uuid, channels: all) }
        return states.filter { $0.state != nil || named.contains($0.channel) }
    }

    func hereNow(channels: [String], groups: [String], query: OccupancyQuery) async throws(PubNodeError) -> [ChannelOccupancy] {
        let presence = try redis()
        let all = try await expand(channels, groups).channels
        return try await Self.refusing { try await presence.hereNow(channels: all, query: query) }
    }

    func hereNow(query: OccupancyQuery) async throws(PubNodeError) -> [ChannelOccupancy] {
        let presence = try redis()
        return try await Self.refusing { try await presence.hereNow(query: query) }
    }

    func whereNow(uuid: String) async throws(PubNodeError) -> [String] {
        let presence = try redis()
        return try await Self.refusing { try await presence.whereNow(uuid: uuid) }
    }

    /// Times out, in Redis, entries whose timeout passed; each is removed (and announced) by
    /// exactly one node. Runs in the background: the counts are not known yet (zero).
    func sweep() -> PresenceSweepCounts {
        store.dropMarks(olderThan: UInt64(settings.timeoutSeconds) * 2_000_000_000, now: cluster.clock.nowNanoseconds())
        guard link.isUp else { return PresenceSweepCounts() }
        run { () async throws(PubNodeError) in
            let presence = try redis()
            return try await Self.refusing { try await presence.sweep(limit: 1_000) }
        }
        return PresenceSweepCounts()
    }

    // The synchronous queries are not used: `shared` answers them from Redis.
    func setState(uuid: String, channels: [String], groups: [String], state: [UInt8]) throws(PubNodeError) -> [UInt8]? {
        throw .unavailable("cluster presence is answered asynchronously")
    }

    func state(of uuid: String, channels: [String], groups: [String]) -> [(channel: String, state: [UInt8]?)] { [] }
    func hereNow(channels: [String], groups: [String], query: OccupancyQuery) -> [ChannelOccupancy] { [] }
    func hereNow(query: OccupancyQuery) -> [ChannelOccupancy] { [] }
    func whereNow(uuid: String) -> [String] { [] }

    private func redis() throws(PubNodeError) -> RedisPresence {
        RedisPresence(connection: try link.connection(), prefix: cluster.log.prefix, subscribeKey: subscribeKey,
                      settings: settings, maxStatesPerUUID: hub.limits.maxStatesPerUUID)
    }

    /// The channels presence applies to: those named (minus `-pnpres` ones), then the channels of
    /// each group (as Redis has them), each once; and each group's channels.
    private func expand(_ channels: [String], _ groups: [String]) async throws(PubNodeError)
        -> (channels: [String], membersByGroup: [String: [String]]) {
        var seen = Set<String>()
        var result = channels.filter { NameRules.presenceBase($0) == nil && seen.insert($0).inserted }
        var membersByGroup: [String: [String]] = [:]
        let shared = RedisSharedGroups(subscribeKey: subscribeKey, cluster: cluster, link: link, limits: hub.limits)
        for group in groups where NameRules.presenceBase(group) == nil {
            let members = try await shared.channels(inGroup: group)
            membersByGroup[group] = members
            result += members.filter { seen.insert($0).inserted }
        }
        return (result, membersByGroup)
    }

    /// Announces events on their `-pnpres` channels (through the cluster) and to the hooks.
    private func announce(_ events: [PresenceEvent]) {
        guard !events.isEmpty, let broker = store.broker.keyset(subscribeKey) else { return }
        let observer = store.observer(subscribeKey)
        for event in events {
            observer?(event)
            broker.deliver(event.draft())
        }
    }

    /// Runs a presence write in the background and announces what it caused.
    private func run(_ body: @escaping @Sendable () async throws(PubNodeError) -> [PresenceEvent]) {
        let logger = cluster.logger
        Task {
            do throws(PubNodeError) { announce(try await body()) } catch {
                logger.warning("cluster presence not written", metadata: ["error": "\(error)"])
            }
        }
    }

    private static func refusing<T>(_ body: () async throws -> T) async throws(PubNodeError) -> T {
        do { return try await body() } catch let error as PubNodeError { throw error } catch { throw .unavailable("\(error)") }
    }
}
