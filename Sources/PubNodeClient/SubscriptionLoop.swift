import Foundation

/// The subscription: one multiplexed long-poll for the whole set of channels and groups.
///
/// Changing the set restarts the long-poll with the same cursor, so nothing published in between is
/// lost. Failures are retried with the configured backoff, resuming from the last timetoken.
actor SubscriptionLoop {
    let configuration: PubNodeConfiguration
    let transport: any PubNodeTransport
    let hub: EventHub
    let sleeper: any PubNodeSleeper
    let random: @Sendable () -> Double
    let access: AccessState

    var channels: Set<String> = []
    var groups: Set<String> = []
    var presenceChannels: Set<String> = []
    var presenceGroups: Set<String> = []
    /// The timetoken and region of the last answer (nil before the handshake).
    var cursor: (timetoken: UInt64, region: Int?)?
    var status: ConnectionStatus = .disconnected
    /// Bumped on every restart; a poll of an older generation drops its answer.
    var generation = 0
    var failures = 0
    var dedupe: DedupeCache
    var pollTask: Task<Void, Never>?
    var heartbeatTask: Task<Void, Never>?
    /// When the last long-poll was sent (the sleeper's `now()`): a leave sent right after it may
    /// reach the node first.
    var lastPollSentAt: Double?

    /// Seconds a just-sent long-poll is given to reach the node before a leave is repeated.
    static let leaveSettle = 0.25

    init(configuration: PubNodeConfiguration, transport: any PubNodeTransport, hub: EventHub,
         sleeper: any PubNodeSleeper, random: @escaping @Sendable () -> Double, access: AccessState) {
        self.access = access
        self.configuration = configuration
        self.transport = transport
        self.hub = hub
        self.sleeper = sleeper
        self.random = random
        self.dedupe = DedupeCache(capacity: configuration.dedupeCacheSize)
    }

    func subscribe(channels newChannels: [String], groups newGroups: [String], at timetoken: UInt64?, withPresence: Bool) {
        channels.formUnion(newChannels)
        groups.formUnion(newGroups)
        if withPresence {
            presenceChannels.formUnion(newChannels)
            presenceGroups.formUnion(newGroups)
        }
        if let timetoken { cursor = (timetoken, nil) }
        hub.emit(.subscriptionChanged(change))
        restart()
    }

    func unsubscribe(channels gone: [String], groups goneGroups: [String]) async {
        let leftChannels = channels.intersection(gone)
        let leftGroups = groups.intersection(goneGroups)
        channels.subtract(gone)
        groups.subtract(goneGroups)
        presenceChannels.subtract(gone)
        presenceGroups.subtract(goneGroups)
        guard !leftChannels.isEmpty || !leftGroups.isEmpty else { return }
        hub.emit(.subscriptionChanged(change))
        if channels.isEmpty && groups.isEmpty { cursor = nil }
        let pollSentAt = lastPollSentAt
        restart()
        await leave(channels: leftChannels.sorted(), groups: leftGroups.sorted())
        // A long-poll sent a moment ago (on its own connection) may reach the node after the
        // leave and make the uuid present again; once it has surely arrived, leave once more.
        let sincePoll = pollSentAt.map { sleeper.now() - $0 } ?? .infinity
        if sincePoll < Self.leaveSettle {
            try? await sleeper.sleep(seconds: Self.leaveSettle - sincePoll)
            await leave(channels: leftChannels.sorted(), groups: leftGroups.sorted())
        }
    }

    func unsubscribeAll() async {
        await unsubscribe(channels: Array(channels), groups: Array(groups))
    }

    var change: SubscriptionChange { SubscriptionChange(channels: channels.sorted(), channelGroups: groups.sorted()) }

    /// Stops the current long-poll and, if anything is subscribed, starts a new one from the cursor.
    func restart() {
        generation += 1
        pollTask?.cancel()
        pollTask = nil
        heartbeatTask?.cancel()
        heartbeatTask = nil
        failures = 0
        guard !channels.isEmpty || !groups.isEmpty else {
            setStatus(.disconnected)
            return
        }
        if status != .connected && status != .reconnecting { setStatus(.connecting) }
        let current = generation
        pollTask = Task { await self.poll(generation: current) }
        if configuration.heartbeatInterval > 0 {
            heartbeatTask = Task { await self.heartbeat(generation: current) }
        }
    }

    func setStatus(_ next: ConnectionStatus, error: PubNodeClientError? = nil) {
        guard next != status else { return }
        let previous = status
        status = next
        hub.emit(.status(StatusChange(previous: previous, current: next, error: error)))
    }

    /// Stops polling and heartbeats without changing the subscription set.
    func stop() {
        generation += 1
        pollTask?.cancel()
        heartbeatTask?.cancel()
        pollTask = nil
        heartbeatTask = nil
    }

    /// The subscribe path segment and `channel-group` value, presence channels included.
    var wireNames: (channels: [String], groups: [String]) {
        let names = channels.sorted() + presenceChannels.sorted().map { $0 + "-pnpres" }
        let groupNames = groups.sorted() + presenceGroups.sorted().map { $0 + "-pnpres" }
        return (names, groupNames)
    }

    func presencePath(_ names: [String], _ rest: String) -> [String] {
        ["v2", "presence", "sub-key", Percent.encode(configuration.subscribeKey), "channel", Percent.list(names), rest]
    }

    func leave(channels: [String], groups: [String]) async {
        var query: [(String, String)] = []
        if !groups.isEmpty { query.append(("channel-group", groups.joined(separator: ","))) }
        guard let request = try? request(presencePath(channels, "leave"), query: query,
                                         timeout: configuration.requestTimeout) else { return }
        _ = try? await PubNodeClient.send(request, through: transport)
    }

    func request(_ path: [String], query: [(String, String)], timeout: Double) throws(PubNodeClientError) -> TransportRequest {
        // The token is read for every request, so one set while subscribed goes out with the next.
        try RequestBuilder(configuration: configuration, token: access.token, wallClock: access.wallClock)
            .request(path, query: query, timeout: timeout)
    }
}
