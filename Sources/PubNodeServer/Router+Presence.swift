import PubNodeCore

/// The presence endpoints under `/v2/presence/sub-key/{sub}`.
extension Router {
    /// Routes `s` (the path segments, `s[1] == "presence"`, `s[2] == "sub-key"`) to its endpoint.
    func presence(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        return answering(.object(service: "Presence"), keyset: s[3]) { () throws(PubNodeError) in
            switch s.count {
            case 4:
                let target = try Self.presenceTarget(request)
                let query = try Self.occupancyQuery(request)
                return respond(try node.globalHereNow(target, query: query)) { .json(PresenceResponse.hereNow(channels: $0, query: query)) }
            case 6 where s[4] == "channel":
                let target = try Self.presenceTarget(request)
                let query = try Self.occupancyQuery(request)
                return respond(try node.hereNow(target, query: query)) { result in
                    if result.isSingleChannel, let only = result.channels.first {
                        return .json(PresenceResponse.hereNow(single: only, query: query))
                    }
                    return .json(PresenceResponse.hereNow(channels: result.channels, query: query))
                }
            case 6 where s[4] == "uuid":
                return respond(try node.whereNow(try Self.presenceTarget(request), of: s[5])) { .json(PresenceResponse.whereNow($0)) }
            case 7 where s[4] == "channel" && s[6] == "heartbeat":
                try node.heartbeat(try Self.presenceTarget(request), timeoutSeconds: try Self.heartbeatSeconds(request),
                                   state: request.query["state"].map { Array($0.utf8) })
                return .reply(.json(PresenceResponse.heartbeat))
            case 7 where s[4] == "channel" && s[6] == "leave":
                try node.leave(try Self.presenceTarget(request))
                return .reply(.json(PresenceResponse.leave))
            case 8 where s[4] == "channel" && s[6] == "uuid":
                return respond(try node.getState(try Self.presenceTarget(request), of: s[7])) { result in
                    if result.isSingleChannel, let only = result.states.first {
                        return .json(PresenceResponse.state(uuid: result.uuid, channel: only.channel, state: only.state))
                    }
                    return .json(PresenceResponse.state(uuid: result.uuid, states: result.states))
                }
            case 9 where s[4] == "channel" && s[6] == "uuid" && s[8] == "data":
                guard let state = request.query["state"] else { throw .invalidParameter("state is required") }
                return respond(try node.setState(try Self.presenceTarget(request), of: s[7], state: Array(state.utf8))) {
                    .json(PresenceResponse.setState($0))
                }
            default:
                return Self.noSuchEndpoint()
            }
        }
    }

    /// Answers at once, or later with what the node computes off the event loop (a cluster's presence).
    private func respond<Value>(_ answer: NodeAnswer<Value>, _ render: @escaping @Sendable (Value) -> HTTPReply) -> RouteAction {
        switch answer {
        case .now(let value): return .reply(render(value))
        case .later(let body):
            return later(.object(service: "Presence")) { () async throws(PubNodeError) in render(try await body()) }
        }
    }

    /// The keyset, the channels of the path (`…/channel/{channels}`), `channel-group`, `uuid`, `auth`.
    private static func presenceTarget(_ request: PubNubRequest) throws(PubNodeError) -> PresenceRequest {
        let s = request.segments
        let channels = s.count > 5 && s[4] == "channel" ? s[5].commaSeparatedItems() : []
        var target = PresenceRequest(subscribeKey: s[3], channels: channels, groups: request.list("channel-group"),
                                     uuid: uuid(request), authKey: request.query["auth"])
        target.signature = request.signed
        return target
    }

    /// `disable_uuids`, `state`, `limit` and `offset` of a here-now.
    private static func occupancyQuery(_ request: PubNubRequest) throws(PubNodeError) -> OccupancyQuery {
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
        return query
    }
}
