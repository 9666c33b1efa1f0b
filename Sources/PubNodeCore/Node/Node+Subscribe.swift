extension Node {
    /// Validates and authorizes a subscribe; with a uuid, refreshes its presence on everything it
    /// listens to (every poll, handshake or not). A handshake is answered with a cursor taken
    /// *before* the presence change, so a client subscribed with presence also receives its own
    /// join on its first long-poll.
    public func subscribe(_ request: SubscribeRequest) throws(PubNodeError) -> SubscribeStart {
        let keyset = try servedKeyset(request.subscribeKey)
        var receipt: PresenceReceipt?
        return try subscribe(prepare(request), cursor: request.cursor, on: keyset, presence: &receipt)
    }

    /// A subscribe prepared before (`prepare(_:)`), from `cursor`: the keyset is looked up and the
    /// request authorized and answered exactly as `subscribe(_:)` would the same request with
    /// that cursor.
    /// A transport that keeps a connection's prepared subscribe passes each poll's cursor, so the
    /// names are not validated again on every poll, and what the last poll's presence refresh
    /// left (`receipt`, nil at first): a poll soon after one that refreshed the same presence,
    /// with nothing undoing it since, skips the refresh (`PresenceReceipt`). `receipt` is updated
    /// for the next poll of `prepared`, and must not be passed with another.
    public func subscribe(_ prepared: PreparedSubscribe, cursor: Timetoken,
                          presence receipt: inout PresenceReceipt?) throws(PubNodeError) -> SubscribeStart {
        try subscribe(prepared, cursor: cursor, on: servedKeyset(prepared.request.subscribeKey), presence: &receipt)
    }

    /// Validates what in a subscribe depends on the request alone (its names against the node's
    /// limits, which are constant): the same request always prepares the same way. The access
    /// request and the presence update of its polls are built here too, since they are read off
    /// the request alone (a signed request, whose signature changes per poll, is never kept by a
    /// transport). The filter is compiled per poll, after authorization, as a fresh request's would be.
    public func prepare(_ request: SubscribeRequest) throws(PubNodeError) -> PreparedSubscribe {
        guard !request.channels.isEmpty || !request.groups.isEmpty else {
            throw .invalidParameter("subscribe needs at least one channel or channel group")
        }
        let subscription = try Subscription(channelNames: request.channels, groupNames: request.groups, limits: limits)
        var resources: [AccessRequest.Resource] = []
        resources.reserveCapacity(subscription.channels.count + subscription.wildcards.count + subscription.groups.count)
        for channel in subscription.channels { resources.append(.init(.channel, channel, .read)) }
        for wildcard in subscription.wildcards { resources.append(.init(.channel, wildcard.pattern, .read)) }
        for group in subscription.groups { resources.append(.init(.group, group, .read)) }
        let access = AccessRequest(.subscribe, subscribeKey: request.subscribeKey, resources: resources,
                                   uuid: request.uuid, authKey: request.authKey, signature: request.signature)
        let presence = request.uuid.map { uuid in
            PresenceUpdate(uuid: uuid, subscription: subscription, timeoutSeconds: request.heartbeatSeconds,
                           state: request.state)
        }
        return PreparedSubscribe(request: request, subscription: subscription, access: access, presence: presence)
    }

    /// A poll of `prepared` from `cursor` that repeats `last`, the long-poll the same connection's
    /// previous poll of `prepared` started: nil when `last` serves again unchanged but for its
    /// cursor, so the transport parks the waiter it already has; otherwise what
    /// `subscribe(_:cursor:presence:)` starts.
    ///
    /// The poll is authorized and its presence refreshed exactly as `subscribe(_:cursor:presence:)`
    /// does. `last` serves while the keyset it was started on is still served (`isServed`: one
    /// deleted and created again is another, with another broker) and the channel state it keeps
    /// is live (`LongPoll.isCurrent`; a reclaimed one gets a new long-poll, which takes the live
    /// state); otherwise the key is looked up again. While it serves, its subscription is `prepared`'s and its filter was
    /// compiled from `prepared`'s text, which compiles the same way every time. `last` must have
    /// been started from `prepared`.
    public func subscribe(_ prepared: PreparedSubscribe, cursor: Timetoken, presence receipt: inout PresenceReceipt?,
                          repeating last: LongPoll) throws(PubNodeError) -> SubscribeStart? {
        assert(last.subscription == prepared.subscription, "a long-poll repeated with another subscribe")
        // `last`'s keyset is used where it lies: a copy would retain an object every event
        // loop's polls share. It is looked up again only once it is withdrawn, or `last`'s channel
        // state was reclaimed (the lookup then gives the same keyset, and a new long-poll).
        guard last.isCurrent else {
            return try subscribe(prepared, cursor: cursor, on: servedKeyset(prepared.request.subscribeKey),
                                 presence: &receipt)
        }
        try authorize(prepared, on: last.keyset)
        return try refreshPresence(prepared, cursor: cursor, on: last.keyset, presence: &receipt).map { .handshake($0) }
    }

    private func subscribe(_ prepared: PreparedSubscribe, cursor: Timetoken, on keyset: ServedKeyset,
                           presence receipt: inout PresenceReceipt?) throws(PubNodeError) -> SubscribeStart {
        // The prepared values are read in place: copying the request or the subscription into
        // locals would retain and release each of their strings on every poll.
        try authorize(prepared, on: keyset)
        let filter = try subscribeFilter(prepared.request.filter)
        if let handshake = try refreshPresence(prepared, cursor: cursor, on: keyset, presence: &receipt) {
            return .handshake(handshake)
        }
        return .poll(LongPoll(subscription: prepared.subscription, cursor: cursor, filter: filter, keyset: keyset))
    }

    /// Refreshes the presence of an authorized poll of `prepared` (or refuses its bad state); for
    /// a handshake (`cursor` zero), the cursor to answer with, taken *before* the refresh, so the
    /// client also receives its own join.
    private func refreshPresence(_ prepared: PreparedSubscribe, cursor: Timetoken, on keyset: ServedKeyset,
                                 presence receipt: inout PresenceReceipt?) throws(PubNodeError) -> Timetoken? {
        let handshake = cursor == .zero ? clock.current() : nil
        if let update = prepared.presence {
            try keyset.presence.refresh(update, receipt: &receipt)
        } else if let state = prepared.request.state {
            // Without a uuid the state changes nothing, but bad state is still refused.
            _ = try PresenceState.keyed(state, limit: keyset.presence.settings.maxStateBytes)
        }
        return handshake
    }

    /// The compiled subscribe filter (from the node's cache); nil without one or when it is blank.
    func subscribeFilter(_ text: String?) throws(PubNodeError) -> CompiledFilter? {
        guard let text, text.contains(where: { !$0.isWhitespace }) else { return nil }
        do {
            return try filters.compile(text, mode: .message)
        } catch {
            throw .invalidFilter(error.reason)
        }
    }
}
