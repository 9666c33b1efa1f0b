extension Node {
    /// Keeps the caller's uuid present on the target (`…/heartbeat`), applying `state` when given.
    public func heartbeat(_ request: PresenceRequest, timeoutSeconds: Int?, state: [UInt8]?) throws(PubNodeError) {
        let (presence, target) = try presenceTarget(request)
        guard let uuid = request.uuid else { throw .invalidParameter("uuid is required") }
        try authorize(access(.heartbeat, request, target))
        try presence.heartbeat(PresenceUpdate(uuid: uuid, channels: target.channels, groups: target.groups,
                                              timeoutSeconds: timeoutSeconds, state: state))
    }

    /// The caller's uuid leaves the target at once (`…/leave`); without a uuid nothing changes.
    public func leave(_ request: PresenceRequest) throws(PubNodeError) {
        let (presence, target) = try presenceTarget(request)
        try authorize(access(.leave, request, target))
        guard let uuid = request.uuid else { return }
        presence.leave(uuid: uuid, channels: target.channels, groups: target.groups)
    }

    /// Occupancy of the target's channels (here-now).
    public func hereNow(_ request: PresenceRequest, query: OccupancyQuery) throws(PubNodeError) -> HereNow {
        let (presence, target) = try presenceTarget(request)
        try authorize(access(.hereNow, request, target))
        let channels = presence.hereNow(channels: target.channels, groups: target.groups, query: query)
        return HereNow(channels: channels, isSingleChannel: target.channels.count == 1 && target.groups.isEmpty)
    }

    /// Occupancy of every occupied channel of the keyset (global here-now).
    public func globalHereNow(_ request: PresenceRequest, query: OccupancyQuery) throws(PubNodeError) -> [ChannelOccupancy] {
        let (presence, _) = try presenceTarget(request, requireTarget: false)
        try authorize(AccessRequest(.globalHereNow, subscribeKey: request.subscribeKey, uuid: request.uuid,
                                    authKey: request.authKey))
        return presence.hereNow(query: query)
    }

    /// The channels `uuid` is present on (where-now).
    public func whereNow(_ request: PresenceRequest, of uuid: String) throws(PubNodeError) -> [String] {
        let (presence, _) = try presenceTarget(request, requireTarget: false)
        guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
        try authorize(AccessRequest(.whereNow, subscribeKey: request.subscribeKey, resources: [.init(.uuid, uuid, .get)],
                                    uuid: request.uuid, authKey: request.authKey))
        return presence.whereNow(uuid: uuid)
    }

    /// Sets `uuid`'s state on the target; returns it as stored (nil for `{}`).
    public func setState(_ request: PresenceRequest, of uuid: String, state: [UInt8]) throws(PubNodeError) -> [UInt8]? {
        let (presence, target) = try presenceTarget(request)
        guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
        try authorize(access(.setState, request, target, subject: (uuid, .update)))
        return try presence.setState(uuid: uuid, channels: target.channels, groups: target.groups, state: state)
    }

    /// `uuid`'s state on the target's channels.
    public func getState(_ request: PresenceRequest, of uuid: String) throws(PubNodeError) -> PresenceStates {
        let (presence, target) = try presenceTarget(request)
        guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
        try authorize(access(.getState, request, target, subject: (uuid, .get)))
        let single = target.channels.count == 1 && target.groups.isEmpty
        var states = presence.state(of: uuid, channels: target.channels, groups: target.groups)
        if single { states = [(target.channels[0], states.first?.state)] }
        return PresenceStates(uuid: uuid, states: states, isSingleChannel: single)
    }

    /// The keyset's presence and the target validated like a subscribe's (wildcards kept as patterns).
    private func presenceTarget(_ request: PresenceRequest, requireTarget: Bool = true)
        throws(PubNodeError) -> (any KeysetPresence, (channels: [String], groups: [String])) {
        let presence = try keysetPresence(request.subscribeKey)
        if requireTarget, request.channels.isEmpty, request.groups.isEmpty {
            throw .invalidParameter("at least one channel or channel group is required")
        }
        let parsed = try Subscription(channelNames: request.channels, groupNames: request.groups, limits: limits)
        return (presence, (parsed.channels + parsed.wildcards.map(\.pattern), parsed.groups))
    }

    private func access(_ operation: AccessRequest.Operation, _ request: PresenceRequest,
                        _ target: (channels: [String], groups: [String]),
                        subject: (uuid: String, permission: AccessRequest.Permission)? = nil) -> AccessRequest {
        var resources: [AccessRequest.Resource] = .channels(target.channels, .read) + .groups(target.groups, .read)
        if let subject, subject.uuid != request.uuid { resources.append(.init(.uuid, subject.uuid, subject.permission)) }
        return AccessRequest(operation, subscribeKey: request.subscribeKey, resources: resources, uuid: request.uuid,
                             authKey: request.authKey)
    }
}
