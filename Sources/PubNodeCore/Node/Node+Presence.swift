extension Node {
    /// Keeps the caller's uuid present on the target (`…/heartbeat`), applying `state` when given.
    public func heartbeat(_ request: PresenceRequest, timeoutSeconds: Int?, state: [UInt8]?) throws(PubNodeError) {
        let (keyset, target) = try presenceTarget(request)
        let presence = keyset.presence
        guard let uuid = request.uuid else { throw .invalidParameter("uuid is required") }
        try authorize(access(.heartbeat, request, target), on: keyset)
        try presence.heartbeat(PresenceUpdate(uuid: uuid, channels: target.channels, groups: target.groups,
                                              timeoutSeconds: timeoutSeconds, state: state))
    }

    /// The caller's uuid leaves the target at once (`…/leave`); without a uuid nothing changes.
    public func leave(_ request: PresenceRequest) throws(PubNodeError) {
        let (keyset, target) = try presenceTarget(request)
        let presence = keyset.presence
        try authorize(access(.leave, request, target), on: keyset)
        guard let uuid = request.uuid else { return }
        presence.leave(uuid: uuid, channels: target.channels, groups: target.groups)
    }

    /// Occupancy of the target's channels (here-now).
    public func hereNow(_ request: PresenceRequest, query: OccupancyQuery) throws(PubNodeError) -> NodeAnswer<HereNow> {
        let (keyset, target) = try presenceTarget(request)
        let presence = keyset.presence
        try authorize(access(.hereNow, request, target), on: keyset)
        let single = target.channels.count == 1 && target.groups.isEmpty
        let channels: NodeAnswer<[ChannelOccupancy]>
        if let shared = presence.shared {
            channels = .later { () async throws(PubNodeError) in
                try await shared.hereNow(channels: target.channels, groups: target.groups, query: query)
            }
        } else {
            channels = .now(presence.hereNow(channels: target.channels, groups: target.groups, query: query))
        }
        return channels.map { HereNow(channels: $0, isSingleChannel: single) }
    }

    /// Occupancy of every occupied channel of the keyset (global here-now).
    public func globalHereNow(_ request: PresenceRequest, query: OccupancyQuery) throws(PubNodeError) -> NodeAnswer<[ChannelOccupancy]> {
        let (keyset, _) = try presenceTarget(request, requireTarget: false)
        let presence = keyset.presence
        try authorize(AccessRequest(.globalHereNow, subscribeKey: request.subscribeKey, uuid: request.uuid,
                                    authKey: request.authKey, signature: request.signature), on: keyset)
        guard let shared = presence.shared else { return .now(presence.hereNow(query: query)) }
        return .later { () async throws(PubNodeError) in try await shared.hereNow(query: query) }
    }

    /// The channels `uuid` is present on (where-now).
    public func whereNow(_ request: PresenceRequest, of uuid: String) throws(PubNodeError) -> NodeAnswer<[String]> {
        let (keyset, _) = try presenceTarget(request, requireTarget: false)
        let presence = keyset.presence
        guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
        try authorize(AccessRequest(.whereNow, subscribeKey: request.subscribeKey, resources: [.init(.uuid, uuid, .get)],
                                    uuid: request.uuid, authKey: request.authKey, signature: request.signature), on: keyset)
        guard let shared = presence.shared else { return .now(presence.whereNow(uuid: uuid)) }
        return .later { () async throws(PubNodeError) in try await shared.whereNow(uuid: uuid) }
    }

    /// Sets `uuid`'s state on the target; returns it as stored (nil for `{}`).
    public func setState(_ request: PresenceRequest, of uuid: String, state: [UInt8]) throws(PubNodeError) -> NodeAnswer<[UInt8]?> {
        let (keyset, target) = try presenceTarget(request)
        let presence = keyset.presence
        guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
        try authorize(access(.setState, request, target, subject: (uuid, .update)), on: keyset)
        guard let shared = presence.shared else {
            return .now(try presence.setState(uuid: uuid, channels: target.channels, groups: target.groups, state: state))
        }
        return .later { () async throws(PubNodeError) in
            try await shared.setState(uuid: uuid, channels: target.channels, groups: target.groups, state: state)
        }
    }

    /// `uuid`'s state on the target's channels.
    public func getState(_ request: PresenceRequest, of uuid: String) throws(PubNodeError) -> NodeAnswer<PresenceStates> {
        let (keyset, target) = try presenceTarget(request)
        let presence = keyset.presence
        guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
        try authorize(access(.getState, request, target, subject: (uuid, .get)), on: keyset)
        let single = target.channels.count == 1 && target.groups.isEmpty
        let answer: NodeAnswer<[(channel: String, state: [UInt8]?)]>
        if let shared = presence.shared {
            answer = .later { () async throws(PubNodeError) in
                try await shared.state(of: uuid, channels: target.channels, groups: target.groups)
            }
        } else {
            answer = .now(presence.state(of: uuid, channels: target.channels, groups: target.groups))
        }
        return answer.map { states in
            PresenceStates(uuid: uuid, states: single ? [(target.channels[0], states.first?.state)] : states, isSingleChannel: single)
        }
    }

    /// The keyset's presence and the target validated like a subscribe's (wildcards kept as patterns).
    private func presenceTarget(_ request: PresenceRequest, requireTarget: Bool = true)
        throws(PubNodeError) -> (ServedKeyset, (channels: [String], groups: [String])) {
        let keyset = try servedKeyset(request.subscribeKey)
        if requireTarget, request.channels.isEmpty, request.groups.isEmpty {
            throw .invalidParameter("at least one channel or channel group is required")
        }
        let parsed = try Subscription(channelNames: request.channels, groupNames: request.groups, limits: limits)
        return (keyset, (parsed.channels + parsed.wildcards.map(\.pattern), parsed.groups))
    }

    private func access(_ operation: AccessRequest.Operation, _ request: PresenceRequest,
                        _ target: (channels: [String], groups: [String]),
                        subject: (uuid: String, permission: AccessRequest.Permission)? = nil) -> AccessRequest {
        var resources: [AccessRequest.Resource] = .channels(target.channels, .read) + .groups(target.groups, .read)
        if let subject, subject.uuid != request.uuid { resources.append(.init(.uuid, subject.uuid, subject.permission)) }
        return AccessRequest(operation, subscribeKey: request.subscribeKey, resources: resources, uuid: request.uuid,
                             authKey: request.authKey, signature: request.signature)
    }
}
