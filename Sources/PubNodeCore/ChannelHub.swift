import Synchronization

/// The in-memory state of one subscribe key: channels, groups, wildcard prefixes and parked waiters.
///
/// Publishing locks only the destination channel (plus, briefly, each group and wildcard prefix that
/// covers it, found by direct lookup). A subscriber registers on every topic it listens to *before*
/// reading the buffers, so a message published concurrently is either seen by the read or wakes it.
public final class ChannelHub: Sendable {
    /// The subscribe key this hub serves.
    public let subscribeKey: String
    /// The limits in force.
    public let limits: Limits
    let clock: TimetokenClock
    let region: Int
    let channels = ShardedMap<String, ChannelState>()
    let groups = ShardedMap<String, FanInState>(shardCount: 16)
    /// Groups with at least one channel (bounded by `Limits.maxGroupsPerKeyset`).
    let groupCount = Atomic<Int>(0)
    /// Wildcard patterns (`a.*`, `a.*-pnpres`): the channels that exist under each and the waiters on it.
    let prefixes = ShardedMap<String, FanInState>(shardCount: 16)
    /// Who is present on which channel; its events are published on this hub's `-pnpres` channels.
    public let presence: PresenceTracker
    /// This hub's number among every hub the process created, never reused: what its channel
    /// states carry (`ChannelState.hubSerial`), so that a state kept by a holder is told apart
    /// from another hub's, even one at the same address after this one is gone.
    let serial = ChannelHub.serials.wrappingAdd(1, ordering: .relaxed).newValue
    /// The last `serial` given.
    private static let serials = Atomic<UInt64>(0)

    /// Creates an empty hub; `presence` defaults to the node-wide settings of `limits`;
    /// `presenceObserver` is told of every per-uuid presence change.
    public init(subscribeKey: String, limits: Limits, clock: TimetokenClock, region: Int = 1,
                presence: PresenceSettings? = nil, presenceObserver: (@Sendable (PresenceEvent) -> Void)? = nil) {
        self.subscribeKey = subscribeKey
        self.limits = limits
        self.clock = clock
        self.region = region
        self.presence = PresenceTracker(settings: presence ?? PresenceSettings(limits: limits), clock: clock,
                                        observer: presenceObserver)
    }

    /// The result of a publish: the accepted message and the waiters to wake.
    public struct PublishOutcome: Sendable {
        /// The message as buffered.
        public var message: PublishedMessage
        /// Waiters parked on the channel, its groups and its wildcard prefixes.
        public var waiters: [any Waiter]
    }

    /// Buffers a message on its channel with a fresh timetoken and collects the waiters to wake.
    ///
    /// The timetoken is issued under the channel's lock, so a channel's buffer is always in
    /// timetoken order.
    public func publish(_ draft: PublishDraft) -> PublishOutcome {
        var kept: ChannelState?
        return publish(draft, keeping: &kept)
    }

    /// `publish(_:)` through `kept`, the state of `draft.channel` that a publisher keeps across
    /// its publishes: while that state lives, the channel is not looked up by name. Otherwise (none
    /// kept, another hub's or channel's, or reclaimed since) it is, and `kept` is set to the state
    /// used.
    public func publish(_ draft: PublishDraft, keeping kept: inout ChannelState?) -> PublishOutcome {
        var waiters: [any Waiter] = []
        var memberOf: Set<String> = []
        var listed: ListedPrefixes?
        let message = withChannel(draft.channel, listedUnder: &listed, keeping: &kept) { inner in
            let timetoken = clock.next()
            let now = clock.nowNanoseconds()
            let accepted = PublishedMessage(draft: draft, timetoken: timetoken, subscribeKey: subscribeKey,
                                            region: region, publishedAtNanoseconds: now)
            inner.ring.append(accepted)
            inner.published &+= 1
            inner.lastActivityNanoseconds = now
            inner.waiters.takeAll(into: &waiters)
            memberOf = inner.groups
            return accepted
        }
        collectFanIn(of: draft.channel, listedUnder: listed, memberOf: memberOf, into: &waiters)
        return PublishOutcome(message: message, waiters: waiters)
    }

    /// Takes the waiters of the groups holding `channel` (`memberOf`, read under its lock), of the
    /// `-pnpres` groups of its base channel's groups, and of its wildcard patterns: through the
    /// prefixes the channel is `listedUnder` when it is known to be listed, otherwise listing the
    /// channel under each pattern first.
    func collectFanIn(of channel: String, listedUnder listed: ListedPrefixes?, memberOf: Set<String>,
                      into waiters: inout [any Waiter]) {
        if let base = NameRules.presenceBase(channel) {
            // A presence event reaches subscribers of `group-pnpres` for every group holding the base channel.
            let baseGroups = channels.get(base)?.inner.withLock { $0.groups } ?? []
            for group in baseGroups {
                groups.get(group + NameRules.presenceSuffix)?.takeWaiters(into: &waiters)
            }
        }
        for group in memberOf {
            groups.get(group)?.takeWaiters(into: &waiters)
        }
        if let listed {
            for prefix in listed.states {
                let taken = prefix.inner.withLock { inner -> Bool in
                    guard !inner.reclaimed else { return false }
                    inner.waiters.takeAll(into: &waiters)
                    return true
                }
                if !taken { listAndTake(channel, under: prefix.name, into: &waiters) }
            }
            return
        }
        for pattern in NameRules.wildcardPatterns(matching: channel) {
            listAndTake(channel, under: pattern, into: &waiters)
        }
    }

    /// Lists `channel` under the wildcard `pattern` and takes the pattern's waiters. Listing before
    /// taking means a woken wildcard subscriber always finds the channel, even if another path
    /// created it a moment ago and has not listed it yet.
    private func listAndTake(_ channel: String, under pattern: String, into waiters: inout [any Waiter]) {
        withFanIn(prefixes, pattern) { inner in
            inner.members.insert(channel)
            inner.waiters.takeAll(into: &waiters)
        }
    }

    /// The live channel state for `name`, created (and indexed under its wildcard prefixes) if new.
    func channelState(_ name: String) -> ChannelState {
        if let existing = channels.get(name) { return existing }
        var created = false
        let state = channels.getOrCreate(name) {
            created = true
            return ChannelState(name: name, hubSerial: serial, capacity: limits.bufferSize, now: clock.nowNanoseconds())
        }
        if created {
            let listed = NameRules.wildcardPatterns(matching: name).map { pattern in
                fanIn(prefixes, pattern) { $0.members.insert(name) }
            }
            let listedUnder = listed.isEmpty ? ListedPrefixes.none : ListedPrefixes(listed)
            state.inner.withLock { inner in
                if inner.listedUnder == nil { inner.listedUnder = listedUnder }
            }
        }
        return state
    }

    /// Runs `body` on the live fan-in state `name` of `map`, creating it when absent.
    @discardableResult
    func withFanIn<R>(_ map: ShardedMap<String, FanInState>, _ name: String,
                      _ body: (inout FanInState.Inner) -> R) -> R {
        liveFanIn(map, name, body).result
    }

    /// Runs `body` on the live fan-in state `name` of `map` (created when absent) and returns that state.
    @discardableResult
    func fanIn(_ map: ShardedMap<String, FanInState>, _ name: String,
               _ body: (inout FanInState.Inner) -> Void) -> FanInState {
        liveFanIn(map, name, body).state
    }

    /// Runs `body` once on the live fan-in state `name` of `map`: a state reclaimed between the
    /// lookup and the lock is looked up (created) again.
    private func liveFanIn<R>(_ map: ShardedMap<String, FanInState>, _ name: String,
                              _ body: (inout FanInState.Inner) -> R) -> (state: FanInState, result: R) {
        while true {
            let state = map.getOrCreate(name) { FanInState(name: name) }
            // nil: the state was reclaimed (`body` did not run); an R that is itself optional is
            // wrapped once more, so its nil is not taken for that.
            let result: R? = state.inner.withLock { inner in
                guard !inner.reclaimed else { return nil }
                return body(&inner)
            }
            if let result { return (state, result) }
        }
    }

    /// Runs `body` on the live channel state `name`, creating it when absent.
    @discardableResult
    func withChannel<R>(_ name: String, _ body: (inout ChannelState.Inner) -> R) -> R {
        var listed: ListedPrefixes?
        return withChannel(name, listedUnder: &listed, body)
    }

    /// Runs `body` on the live channel state `name`, creating it when absent, and sets `listed` to
    /// the prefixes that state is listed under (nil while another thread is still listing it).
    func withChannel<R>(_ name: String, listedUnder listed: inout ListedPrefixes?,
                        _ body: (inout ChannelState.Inner) -> R) -> R {
        var kept: ChannelState?
        return withChannel(name, listedUnder: &listed, keeping: &kept, body)
    }

    /// `withChannel(_:listedUnder:_:)` through `kept`: its state when it is `name`'s and live
    /// (nothing looked up), otherwise the live state found by name, which `kept` is set to.
    func withChannel<R>(_ name: String, listedUnder listed: inout ListedPrefixes?, keeping kept: inout ChannelState?,
                        _ body: (inout ChannelState.Inner) -> R) -> R {
        if let state = kept, owns(state), state.name == name, let result = withLive(state, { inner -> R in
            listed = inner.listedUnder
            return body(&inner)
        }) {
            return result
        }
        while true {
            let state = channelState(name)
            let result: R? = state.inner.withLock { inner in
                guard !inner.reclaimed else { return nil }
                listed = inner.listedUnder
                return body(&inner)
            }
            if let result {
                kept = state
                return result
            }
        }
    }

    /// Whether `state` is one of this hub's (a kept state handed back by a holder).
    func owns(_ state: ChannelState) -> Bool { state.hubSerial == serial }

    /// Runs `body` on `state` unless the sweeper has reclaimed it (nil then).
    func withLive<R>(_ state: ChannelState, _ body: (inout ChannelState.Inner) -> R) -> R? {
        state.inner.withLock { inner in
            guard !inner.reclaimed else { return nil }
            return body(&inner)
        }
    }
}
