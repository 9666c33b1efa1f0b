extension ChannelHub {
    /// What one presence sweep did, and the subscribers of its events to wake.
    public struct PresenceSweepReport: Sendable {
        /// Timeouts, interval events and expired state.
        public var counts: PresenceTracker.SweepCounts
        /// Waiters on the `-pnpres` channels the events went to.
        public var waiters: [any Waiter]
    }

    /// The presence rules of this keyset.
    public var presenceSettings: PresenceSettings { presence.settings }

    /// Refreshes presence for a subscribe or heartbeat; returns the waiters its events woke.
    ///
    /// The state is validated before anything changes, so a refused request changes nothing.
    /// State keyed by a group applies to each member channel; a channel's own key wins.
    public func heartbeat(_ update: PresenceUpdate) throws(PubNodeError) -> [any Waiter] {
        let settings = presence.settings
        let keyed = try update.state.map { bytes throws(PubNodeError) in
            try PresenceState.keyed(bytes, limit: settings.maxStateBytes)
        } ?? [:]
        let (channels, membersByGroup) = presenceChannels(update.channels, groups: update.groups)
        var states: [String: [UInt8]?] = [:]
        if !keyed.isEmpty {
            for (group, members) in membersByGroup {
                guard let state = keyed[group] else { continue }
                for member in members { states.updateValue(state, forKey: member) }
            }
            for channel in channels {
                if let state = keyed[channel] { states.updateValue(state, forKey: channel) }
            }
        }
        var waiters: [any Waiter] = []
        let fits = presence.touch(uuid: update.uuid, channels: channels,
                                  timeoutSeconds: settings.timeout(requested: update.timeoutSeconds), states: states,
                                  stateLimit: limits.maxStatesPerUUID) { event in
            waiters.append(contentsOf: publish(event.draft()).waiters)
        }
        guard fits else { throw .tooManyStates(limit: limits.maxStatesPerUUID) }
        return waiters
    }

    /// Refreshes like `heartbeat(_:)` unless `receipt`, from the last refresh of the same update,
    /// shows that this one would change nothing (`PresenceReceipt`); `receipt` becomes the one to
    /// pass next time. Returns the waiters the refresh's events woke.
    ///
    /// A skipped refresh (nearly every poll) leaves `receipt` where it lies: the check reads it in
    /// place and nothing is copied or returned. A copy would retain its epoch, one object that
    /// every event loop's polls of the keyset share.
    public func refresh(_ update: PresenceUpdate, receipt: inout PresenceReceipt?) throws(PubNodeError) -> [any Waiter] {
        let now = presence.clock.nowNanoseconds()
        let window = PresenceReceipt.window(timeoutSeconds: presence.settings.timeout(requested: update.timeoutSeconds),
                                            longPollSeconds: limits.longPollTimeoutSeconds)
        if receipt?.covers(update, in: presence.epoch, window: window, now: now) == true { return [] }
        // Read before the refresh: a change racing with it fails the next check (`PresenceEpoch`).
        let changes = presence.epoch.changes
        let waiters = try heartbeat(update)
        receipt = PresenceReceipt(epoch: presence.epoch, changes: changes, refreshedAt: now)
        return waiters
    }

    /// Removes `uuid` from `channels` and the channels of `groups` at once; returns waiters to wake.
    public func leave(uuid: String, channels: [String], groups: [String]) -> [any Waiter] {
        var waiters: [any Waiter] = []
        presence.leave(uuid: uuid, channels: presenceChannels(channels, groups: groups).channels) { event in
            waiters.append(contentsOf: publish(event.draft()).waiters)
        }
        return waiters
    }

    /// Sets `uuid`'s state on `channels` and the channels of `groups`; returns the state as stored
    /// (nil for `{}`) and the waiters its `state-change` events woke.
    public func setState(uuid: String, channels: [String], groups: [String], state: [UInt8])
        throws(PubNodeError) -> (state: [UInt8]?, waiters: [any Waiter]) {
        let stored = try PresenceState.object(state, limit: presence.settings.maxStateBytes)
        var waiters: [any Waiter] = []
        let fits = presence.setState(uuid: uuid, channels: presenceChannels(channels, groups: groups).channels,
                                     state: stored, stateLimit: limits.maxStatesPerUUID) { event in
            waiters.append(contentsOf: publish(event.draft()).waiters)
        }
        guard fits else { throw .tooManyStates(limit: limits.maxStatesPerUUID) }
        return (stored, waiters)
    }

    /// `uuid`'s state on each channel named, and on each channel of `groups` where it has one.
    public func state(of uuid: String, channels: [String], groups: [String]) -> [(channel: String, state: [UInt8]?)] {
        let named = presenceChannels(channels, groups: []).channels
        let all = presenceChannels(channels, groups: groups).channels
        let states = presence.states(of: uuid, on: all)
        let namedSet = Set(named)
        return all.compactMap { channel in
            let state = states[channel]
            return state != nil || namedSet.contains(channel) ? (channel, state) : nil
        }
    }

    /// Occupancy of `channels` and of every channel of `groups` (here-now).
    public func hereNow(channels: [String], groups: [String], query: OccupancyQuery) -> [ChannelOccupancy] {
        presence.occupancy(of: presenceChannels(channels, groups: groups).channels, query: query)
    }

    /// Occupancy of every occupied channel of the keyset (global here-now).
    public func hereNow(query: OccupancyQuery) -> [ChannelOccupancy] {
        presence.occupancy(of: presence.occupiedChannels(), query: query)
    }

    /// The channels `uuid` is present on (where-now).
    public func whereNow(uuid: String) -> [String] {
        presence.channels(of: uuid)
    }

    /// Times out expired uuids and emits due `interval` events; returns what it did and whom to wake.
    public func sweepPresence() -> PresenceSweepReport {
        var waiters: [any Waiter] = []
        let counts = presence.sweep { event in
            waiters.append(contentsOf: publish(event.draft()).waiters)
        }
        return PresenceSweepReport(counts: counts, waiters: waiters)
    }

    /// The channels presence applies to: those named (minus `-pnpres` ones) then each group's
    /// members, without repeats; and the members found for each group.
    func presenceChannels(_ channels: [String], groups: [String]) -> (channels: [String], membersByGroup: [String: [String]]) {
        if groups.isEmpty, channels.count == 1 {
            // The common subscribe: one channel, no groups.
            return (NameRules.presenceBase(channels[0]) == nil ? channels : [], [:])
        }
        var seen = Set<String>()
        var result: [String] = []
        for channel in channels where NameRules.presenceBase(channel) == nil && seen.insert(channel).inserted {
            result.append(channel)
        }
        var membersByGroup: [String: [String]] = [:]
        for group in groups where NameRules.presenceBase(group) == nil {
            let members = Array(self.groups.get(group)?.members() ?? [])
            membersByGroup[group] = members
            for member in members where seen.insert(member).inserted { result.append(member) }
        }
        return (result, membersByGroup)
    }
}
