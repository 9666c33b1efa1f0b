import PubNodeCore

/// The presence endpoints under `/v2/presence/sub-key/{sub}`.
extension Router {
    /// Routes `s` (the path segments, `s[1] == "presence"`, `s[2] == "sub-key"`) to its endpoint.
    func presence(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        switch s.count {
        case 4:
            return hereNow(request, global: true)
        case 6 where s[4] == "channel":
            return hereNow(request, global: false)
        case 6 where s[4] == "uuid":
            return whereNow(request)
        case 7 where s[4] == "channel" && s[6] == "heartbeat":
            return heartbeat(request)
        case 7 where s[4] == "channel" && s[6] == "leave":
            return leave(request)
        case 8 where s[4] == "channel" && s[6] == "uuid":
            return getState(request)
        case 9 where s[4] == "channel" && s[6] == "uuid" && s[8] == "data":
            return setState(request)
        default:
            return .reply(ErrorResponses.object(status: .notFound, message: "Not Found: no such endpoint"))
        }
    }

    /// `…/channel/{channels}/heartbeat` with `uuid`, `heartbeat`, `state` and `channel-group`.
    private func heartbeat(_ request: PubNubRequest) -> RouteAction {
        presenceCall(request) { broker, target throws(PubNodeError) in
            let uuid = try requiredUUID(request)
            try authorize(.heartbeat, request, target)
            let update = PresenceUpdate(uuid: uuid, channels: target.channels, groups: target.groups,
                                        timeoutSeconds: try Self.heartbeatSeconds(request),
                                        state: request.query["state"].map { Array($0.utf8) })
            return .published(.json(PresenceResponse.heartbeat), waiters: try broker.heartbeat(update))
        }
    }

    /// `…/channel/{channels}/leave` with `uuid` and `channel-group`: the uuid leaves at once.
    private func leave(_ request: PubNubRequest) -> RouteAction {
        presenceCall(request) { broker, target throws(PubNodeError) in
            try authorize(.leave, request, target)
            guard let uuid = Self.uuid(request) else { return .reply(.json(PresenceResponse.leave)) }
            let waiters = broker.leave(uuid: uuid, channels: target.channels, groups: target.groups)
            return .published(.json(PresenceResponse.leave), waiters: waiters)
        }
    }

    /// `…/channel/{channels}` (here-now) and `/v2/presence/sub-key/{sub}` (global here-now), with
    /// `channel-group`, `disable_uuids`, `state`, `limit` and `offset`.
    private func hereNow(_ request: PubNubRequest, global: Bool) -> RouteAction {
        presenceCall(request, requireTarget: !global) { broker, target throws(PubNodeError) in
            try authorize(.hereNow, request, target)
            var query = OccupancyQuery(includeUUIDs: !(try request.flag("disable_uuids") ?? false),
                                       includeState: try request.flag("state") ?? false)
            if let offset = try request.integer("offset") {
                guard offset >= 0 else { throw .invalidParameter("offset must be a non-negative integer") }
                query.offset = offset
            }
            if let limit = try request.integer("limit") {
                guard limit >= 0 else { throw .invalidParameter("limit must be a non-negative integer") }
                query.limit = limit
            }
            if global {
                return .reply(.json(PresenceResponse.hereNow(channels: broker.hereNow(query: query), query: query)))
            }
            let channels = broker.hereNow(channels: target.channels, groups: target.groups, query: query)
            if target.channels.count == 1, target.groups.isEmpty, let only = channels.first {
                return .reply(.json(PresenceResponse.hereNow(single: only, query: query)))
            }
            return .reply(.json(PresenceResponse.hereNow(channels: channels, query: query)))
        }
    }

    /// `/v2/presence/sub-key/{sub}/uuid/{uuid}`: the channels a uuid is present on.
    private func whereNow(_ request: PubNubRequest) -> RouteAction {
        presenceCall(request, requireTarget: false) { broker, target throws(PubNodeError) in
            let uuid = request.segments[5]
            guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
            try authorize(.whereNow, request, target, uuid: uuid)
            return .reply(.json(PresenceResponse.whereNow(broker.whereNow(uuid: uuid))))
        }
    }

    /// `…/channel/{channels}/uuid/{uuid}/data?state={json}`: sets the uuid's state there.
    private func setState(_ request: PubNubRequest) -> RouteAction {
        presenceCall(request) { broker, target throws(PubNodeError) in
            let uuid = request.segments[7]
            guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
            guard let state = request.query["state"] else { throw .invalidParameter("state is required") }
            try authorize(.setState, request, target, uuid: uuid)
            let result = try broker.setState(uuid: uuid, channels: target.channels, groups: target.groups,
                                             state: Array(state.utf8))
            return .published(.json(PresenceResponse.setState(result.state)), waiters: result.waiters)
        }
    }

    /// `…/channel/{channels}/uuid/{uuid}`: the uuid's state there.
    private func getState(_ request: PubNubRequest) -> RouteAction {
        presenceCall(request) { broker, target throws(PubNodeError) in
            let uuid = request.segments[7]
            guard !uuid.isEmpty else { throw .invalidParameter("uuid must not be empty") }
            try authorize(.getState, request, target, uuid: uuid)
            let states = broker.state(of: uuid, channels: target.channels, groups: target.groups)
            if target.channels.count == 1, target.groups.isEmpty {
                let state = states.first?.state
                return .reply(.json(PresenceResponse.state(uuid: uuid, channel: target.channels[0], state: state)))
            }
            return .reply(.json(PresenceResponse.state(uuid: uuid, states: states)))
        }
    }

    /// The channels and groups a presence request names, validated like a subscribe's.
    struct PresenceTarget {
        var channels: [String]
        var groups: [String]
    }

    /// Resolves the keyset and the target, runs `body`, and turns any refusal into a Presence error.
    private func presenceCall(_ request: PubNubRequest, requireTarget: Bool = true,
                              _ body: (any KeysetBroker, PresenceTarget) throws(PubNodeError) -> RouteAction) -> RouteAction {
        do throws(PubNodeError) {
            let broker = try node.keyset(request.segments[3])
            let channelNames = request.segments.count > 5 && request.segments[4] == "channel"
                ? request.segments[5].split(separator: ",").map(String.init) : []
            let groupNames = request.list("channel-group")
            if requireTarget, channelNames.isEmpty, groupNames.isEmpty {
                throw PubNodeError.invalidParameter("at least one channel or channel group is required")
            }
            let parsed = try Subscription(channelNames: channelNames, groupNames: groupNames, limits: node.limits)
            let channels = parsed.channels + parsed.wildcards.map(\.pattern)
            return try body(broker, PresenceTarget(channels: channels, groups: parsed.groups))
        } catch {
            return refuse(error, .object(service: "Presence"))
        }
    }

    private func authorize(_ operation: AccessRequest.Operation, _ request: PubNubRequest, _ target: PresenceTarget,
                           uuid: String? = nil) throws(PubNodeError) {
        try node.authorizer.authorize(AccessRequest(
            operation: operation, subscribeKey: request.segments[3], channels: target.channels, groups: target.groups,
            uuid: uuid ?? request.query["uuid"], authKey: request.query["auth"]))
    }

    /// The client's uuid (`uuid`), nil when absent or empty.
    static func uuid(_ request: PubNubRequest) -> String? {
        guard let uuid = request.query["uuid"], !uuid.isEmpty else { return nil }
        return uuid
    }

    private func requiredUUID(_ request: PubNubRequest) throws(PubNodeError) -> String {
        guard let uuid = Self.uuid(request) else { throw .invalidParameter("uuid is required") }
        return uuid
    }

    /// The `heartbeat` parameter: seconds, 0 for the keyset default; nil when absent.
    static func heartbeatSeconds(_ request: PubNubRequest) throws(PubNodeError) -> Int? {
        guard let text = request.query["heartbeat"] else { return nil }
        guard let seconds = Int(text), seconds >= 0, seconds <= Int(Int32.max) else {
            throw .invalidParameter("heartbeat must be a non-negative number of seconds")
        }
        return seconds
    }
}
