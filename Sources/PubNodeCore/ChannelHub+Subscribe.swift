extension ChannelHub {
    /// Messages for `subscription` after `cursor`: oldest first, each once, at most `messagesPerResponse`.
    ///
    /// Returns the deliveries and the cursor the client should send next (the last delivered
    /// timetoken, or `cursor` itself when nothing is ready), and whether a buffer read had already
    /// dropped messages newer than the cursor.
    public func collect(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch {
        if let channel = subscription.singleChannel {
            // The common case: one channel's ring is already in order and duplicate-free.
            guard let state = channels.get(channel) else { return DeliveryBatch(deliveries: [], next: cursor) }
            let (found, gap) = state.inner.withLock { Self.read($0, channel: channel, after: cursor, limit: limits) }
            return Self.batch(found, gap: gap, after: cursor)
        }
        // Several channels are read one after another, each under its own lock, while publishers
        // keep issuing timetokens. Only messages at or below a horizon taken *before* reading are
        // delivered: a publish at or below it issued its timetoken under its channel's lock before
        // that channel was read, so it is visible; anything later is left for the next poll. The
        // returned cursor therefore never skips a message still being appended elsewhere.
        let horizon = clock.current()
        var seen = Set<Timetoken>()
        var out: [Delivery] = []
        var gaps: [ChannelGap] = []
        var gapChannels = Set<String>()
        func gather(_ channel: String, match: String?) {
            guard let state = channels.get(channel) else { return }
            let (found, gap) = state.inner.withLock { inner in
                (Array(inner.ring.messages(after: cursor, limit: limits.messagesPerResponse)),
                 inner.ring.gap(after: cursor, channel: channel))
            }
            // A channel reached directly and through a group or pattern is named once.
            if let gap, gapChannels.insert(channel).inserted { gaps.append(gap) }
            for message in found where message.timetoken <= horizon && seen.insert(message.timetoken).inserted {
                out.append(Delivery(message: message, match: match))
            }
        }
        for channel in subscription.channels { gather(channel, match: nil) }
        for group in subscription.groups {
            if let base = NameRules.presenceBase(group) {
                for member in groups.get(base)?.members() ?? [] { gather(member + NameRules.presenceSuffix, match: group) }
            } else {
                for member in groups.get(group)?.members() ?? [] { gather(member, match: group) }
            }
        }
        for wildcard in subscription.wildcards {
            for member in prefixes.get(wildcard.pattern)?.members() ?? [] { gather(member, match: wildcard.pattern) }
        }
        guard !out.isEmpty else { return DeliveryBatch(deliveries: [], next: cursor) }
        out.sort { $0.message.timetoken < $1.message.timetoken }
        if out.count > limits.messagesPerResponse { out.removeLast(out.count - limits.messagesPerResponse) }
        return DeliveryBatch(deliveries: out, next: out[out.count - 1].message.timetoken, gaps: gaps)
    }

    /// Registers `waiter` on every topic of `subscription`, then reads the buffers.
    ///
    /// When messages are already there the waiter is unregistered and they are returned; otherwise
    /// the waiter stays parked (nil) until a publish wakes it or it is cancelled. On a single
    /// channel the read comes first, under the same lock, and the waiter is registered only when
    /// it finds nothing: one lookup and one hold of the lock, and no publish falls in between.
    /// `kept`: the state `state(of:)` gave for that channel, if the caller keeps one: while it is
    /// live, the channel is not looked up at all.
    public func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                     kept: ChannelState? = nil) -> DeliveryBatch? {
        let parked = park(waiter, on: subscription, kept: kept, found: { !$0.found.isEmpty }) { inner, channel in
            Self.read(inner, channel: channel, after: cursor, limit: limits)
        }
        if let (found, gap) = parked {
            return found.isEmpty ? nil : Self.batch(found, gap: gap, after: cursor)
        }
        register(waiter, on: subscription)
        let ready = collect(subscription, after: cursor)
        if ready.deliveries.isEmpty { return nil }
        cancel(waiter, on: subscription)
        return ready
    }

    /// Parks `waiter` unless messages after `cursor` are already buffered: true when they are (the
    /// waiter is then not registered), false when it stays parked until a publish wakes it or it is
    /// cancelled. For a caller that reads what is ready later anyway: on a single channel it looks
    /// at the newest timetoken only, under the same one lookup and hold of the lock as `park`, and
    /// copies nothing; `kept` as for `park`.
    public func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                                kept: ChannelState? = nil) -> Bool {
        let parked = park(waiter, on: subscription, kept: kept, found: { $0 }) { inner, _ in
            inner.ring.hasMessages(after: cursor)
        }
        return parked ?? (park(waiter, on: subscription, after: cursor) != nil)
    }

    /// The live state of `subscription`'s one channel, created when absent, for a caller to keep
    /// and hand back to `park` and `parkUnlessReady` on every poll of it (nil for a subscription
    /// with several topics). A state the sweeper reclaims later is noticed under its lock, and the
    /// channel is then looked up by name as without one.
    public func state(of subscription: Subscription) -> ChannelState? {
        subscription.singleChannel.map(channelState)
    }

    /// For a subscription to one channel: looks at the channel with `look` (given its state and
    /// name) under its lock, as the channel's activity, and registers `waiter` there unless `found`
    /// says the look found messages; nil for a subscription of several topics. One lookup and one
    /// hold of the lock, so no publish falls between the look and the registration.
    ///
    /// Through a live `kept` state nothing is looked up, and nothing of `subscription` is read
    /// either: a kept state is only ever given for a subscription's one channel
    /// (`state(of:)`), so a repeated poll touches neither its name list nor the name.
    private func park<Look>(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?,
                            found: (Look) -> Bool,
                            _ look: (borrowing ChannelState.Inner, String) -> Look) -> Look? {
        let now = clock.nowNanoseconds()
        func body(_ inner: inout ChannelState.Inner, _ channel: String) -> Look {
            inner.lastActivityNanoseconds = now
            let seen = look(inner, channel)
            if !found(seen) { inner.waiters.insert(waiter) }
            return seen
        }
        if let kept, owns(kept) {
            assert(kept.name == subscription.singleChannel, "a kept channel state handed back for another subscription")
            if let seen = withLive(kept, { body(&$0, kept.name) }) { return seen }
        }
        guard let channel = subscription.singleChannel else { return nil }
        return withChannel(channel) { body(&$0, channel) }
    }

    /// One channel's messages after `cursor`, as deliveries, and its gap there, read under its lock
    /// (one array, of at most `messagesPerResponse` entries: the batch is finished after the lock
    /// is let go).
    private static func read(_ inner: borrowing ChannelState.Inner, channel: String, after cursor: Timetoken,
                             limit limits: Limits) -> (found: [Delivery], gap: ChannelGap?) {
        let found = inner.ring.deliveries(after: cursor, limit: limits.messagesPerResponse)
        return (found, found.isEmpty ? nil : inner.ring.gap(after: cursor, channel: channel))
    }

    /// The batch for one channel's `found` deliveries after `cursor`.
    private static func batch(_ found: [Delivery], gap: ChannelGap?, after cursor: Timetoken) -> DeliveryBatch {
        guard let last = found.last else { return DeliveryBatch(deliveries: [], next: cursor) }
        return DeliveryBatch(deliveries: found, next: last.message.timetoken, gaps: gap.map { [$0] } ?? [])
    }

    /// Unregisters `waiter` from every topic of `subscription`. Through a live `kept` state (see
    /// `park`), a single-channel waiter is unregistered without looking its channel up; a kept
    /// state reclaimed since holds no waiter (`ChannelState.reclaim`), so the channel is then
    /// looked up by name.
    public func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState? = nil) {
        if let kept, owns(kept) {
            assert(kept.name == subscription.singleChannel, "a kept channel state handed back for another subscription")
            if withLive(kept, { $0.waiters.remove(waiter) }) != nil { return }
        }
        for channel in subscription.channels {
            channels.get(channel)?.inner.withLock { $0.waiters.remove(waiter) }
        }
        for group in subscription.groups {
            groups.get(group)?.inner.withLock { $0.waiters.remove(waiter) }
        }
        for wildcard in subscription.wildcards {
            prefixes.get(wildcard.pattern)?.inner.withLock { $0.waiters.remove(waiter) }
        }
    }

    /// Unregisters `waiter` after one of this hub's wakes reached it: a wake reaches only waiters
    /// it takes off a topic (`WaiterSet.takeAll`), so a single-channel waiter, registered on that
    /// one topic, is registered nowhere any more and nothing is looked up or locked; a waiter of
    /// several topics is cancelled on all of them (the wake took it off only the one that woke it).
    ///
    /// A `kept` state is given only for a single channel (`state(of:)`), so with one nothing of
    /// `subscription` is read at all.
    ///
    /// Only for a hub whose waiters nothing else wakes (a broker that also wakes them from
    /// elsewhere, like a cluster's, cancels instead).
    public func release(woken waiter: any Waiter, on subscription: Subscription, kept: ChannelState? = nil) {
        guard kept == nil, subscription.singleChannel == nil else { return }
        cancel(waiter, on: subscription)
    }

    private func register(_ waiter: any Waiter, on subscription: Subscription) {
        let now = clock.nowNanoseconds()
        for channel in subscription.channels {
            withChannel(channel) { inner in
                inner.waiters.insert(waiter)
                inner.lastActivityNanoseconds = now
            }
        }
        for group in subscription.groups {
            withFanIn(groups, group) { $0.waiters.insert(waiter) }
        }
        for wildcard in subscription.wildcards {
            withFanIn(prefixes, wildcard.pattern) { $0.waiters.insert(waiter) }
        }
    }

    /// The present timetoken: the cursor a handshake (`tt=0`) answers with.
    public func currentTimetoken() -> Timetoken { clock.current() }
}
