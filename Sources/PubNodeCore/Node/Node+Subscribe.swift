extension Node {
    /// Validates and authorizes a subscribe; with a uuid, refreshes its presence on everything it
    /// listens to (every poll, handshake or not). A handshake is answered with a cursor taken
    /// *before* the presence change, so a client subscribed with presence also receives its own
    /// join on its first long-poll.
    public func subscribe(_ request: SubscribeRequest) throws(PubNodeError) -> SubscribeStart {
        let keyset = try servedKeyset(request.subscribeKey)
        return try subscribe(prepare(request), cursor: request.cursor, on: keyset)
    }

    /// A subscribe prepared before (`prepare(_:)`), from `cursor`: the keyset is looked up and the
    /// request authorized and answered exactly as `subscribe(_:)` would the same request with
    /// that cursor.
    /// A transport that keeps a connection's prepared subscribe passes each poll's cursor, so the
    /// names are not validated again on every poll.
    public func subscribe(_ prepared: PreparedSubscribe, cursor: Timetoken) throws(PubNodeError) -> SubscribeStart {
        try subscribe(prepared, cursor: cursor, on: servedKeyset(prepared.request.subscribeKey))
    }

    /// Validates what in a subscribe depends on the request alone (its names against the node's
    /// limits, which are constant): the same request always prepares the same way. The filter is
    /// compiled per poll, after authorization, as a fresh request's would be.
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
        return PreparedSubscribe(request: request, subscription: subscription, resources: resources)
    }

    private func subscribe(_ prepared: PreparedSubscribe, cursor: Timetoken,
                           on keyset: ServedKeyset) throws(PubNodeError) -> SubscribeStart {
        let request = prepared.request, subscription = prepared.subscription
        let (broker, presence) = (keyset.broker, keyset.presence)
        try authorize(AccessRequest(.subscribe, subscribeKey: request.subscribeKey, resources: prepared.resources,
                                    uuid: request.uuid, authKey: request.authKey, signature: request.signature), on: keyset)
        let filter = try subscribeFilter(request.filter)
        guard let uuid = request.uuid else {
            if let state = request.state { _ = try PresenceState.keyed(state, limit: presence.settings.maxStateBytes) }
            guard cursor != .zero else { return .handshake(clock.current()) }
            return .poll(LongPoll(subscription: subscription, cursor: cursor, filter: filter, broker: broker,
                                  counters: keyset.counters))
        }
        let handshake = cursor == .zero ? clock.current() : nil
        try presence.heartbeat(PresenceUpdate(uuid: uuid, subscription: subscription,
                                              timeoutSeconds: request.heartbeatSeconds, state: request.state))
        if let handshake { return .handshake(handshake) }
        return .poll(LongPoll(subscription: subscription, cursor: cursor, filter: filter, broker: broker,
                              counters: keyset.counters))
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
