extension ChannelHub {
    /// Buffers a message whose timetoken was issued elsewhere (a clustered broker's shared clock)
    /// and returns the waiters to wake; nil when its channel already holds that timetoken or a
    /// newer one (a message read by a catch-up and then pushed, or pushed twice).
    ///
    /// Messages must arrive in timetoken order per subscribe key (the cluster's pushes do). The
    /// node's clock is raised to the timetoken, so a multi-channel read's horizon covers it.
    public func deliver(_ message: PublishedMessage) -> [any Waiter]? {
        clock.advance(to: message.timetoken.rawValue)
        var waiters: [any Waiter] = []
        var memberOf: Set<String> = []
        var listed: ListedPrefixes?
        let appended = withChannel(message.channel, listedUnder: &listed) { inner -> Bool in
            if let newest = inner.ring.newest, message.timetoken <= newest { return false }
            inner.ring.append(message)
            inner.published &+= 1
            inner.lastActivityNanoseconds = clock.nowNanoseconds()
            inner.waiters.takeAll(into: &waiters)
            memberOf = inner.groups
            return true
        }
        guard appended else { return nil }
        collectFanIn(of: message.channel, listedUnder: listed, memberOf: memberOf, into: &waiters)
        return waiters
    }

    /// Merges a channel's shared buffer, read from the cluster, into its local one (see
    /// `MessageRing.merge`) and returns the waiters to wake when anything was added.
    public func resync(_ channel: String, messages: [PublishedMessage], droppedThrough: Timetoken?) -> [any Waiter] {
        if let newest = messages.last { clock.advance(to: newest.timetoken.rawValue) }
        var waiters: [any Waiter] = []
        var memberOf: Set<String> = []
        var listed: ListedPrefixes?
        let added = withChannel(channel, listedUnder: &listed) { inner -> Int in
            let added = inner.ring.merge(messages, droppedThrough: droppedThrough)
            if added > 0 {
                inner.waiters.takeAll(into: &waiters)
                memberOf = inner.groups
            }
            return added
        }
        guard added > 0 else { return [] }
        collectFanIn(of: channel, listedUnder: listed, memberOf: memberOf, into: &waiters)
        return waiters
    }

    /// Whether anyone is parked on `channel`, directly or through one of its groups (for a
    /// `-pnpres` channel, through the `-pnpres` form of its base channel's groups).
    public func hasWaiters(onChannel channel: String) -> Bool {
        let direct = channels.get(channel)?.inner.withLock { !$0.waiters.isEmpty } ?? false
        if direct { return true }
        let base = NameRules.presenceBase(channel)
        let memberOf = channels.get(base ?? channel)?.inner.withLock { $0.groups } ?? []
        return memberOf.contains { hasWaiters(onFanIn: base == nil ? $0 : $0 + NameRules.presenceSuffix, group: true) }
    }

    /// Whether anyone is parked on the group or pattern `name` (`groups: true` for a group).
    public func hasWaiters(onFanIn name: String, group: Bool) -> Bool {
        (group ? groups : prefixes).get(name)?.inner.withLock { !$0.waiters.isEmpty } ?? false
    }

    /// Makes the local group `group` hold exactly `members` (the cluster's copy, which enforced
    /// the limits already); throws only when this hub's own limits refuse it.
    public func mirrorGroup(_ group: String, members: Set<String>) throws(PubNodeError) {
        let current = Set(groups.get(group)?.members() ?? [])
        let removed = current.subtracting(members)
        let added = members.subtracting(current)
        if !removed.isEmpty { try removeChannels(Array(removed), fromGroup: group) }
        if !added.isEmpty { try addChannels(Array(added), toGroup: group) }
    }
}
