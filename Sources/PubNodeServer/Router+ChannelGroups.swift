import PubNodeCore

extension Router {
    /// `/v1/channel-registration/sub-key/{sub}/channel-group[/{group}[/remove]]` with `add=` / `remove=`.
    /// Listing the groups pages with `limit=N` and `start=<name>` (the previous page's `next`).
    func channelGroups(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        let group = s.count >= 6 ? s[5] : nil
        let deleting = s.count == 7 && s[6] == "remove"
        return answering(.object(service: "channel-registry")) { () throws(PubNodeError) in
            try node.requireKeyset(s[3])
            guard s.count <= 6 || deleting, request.method == .GET else { return Self.noSuchEndpoint() }
            let adding = request.list("add")
            let removing = request.list("remove")
            let action: ChannelGroupRequest.Action
            switch (group, deleting, adding.isEmpty, removing.isEmpty) {
            case (nil, _, _, _):
                var limit: Int?
                if let text = request.query["limit"] {
                    guard let value = Int(text) else { throw .invalidParameter("limit must be a positive whole number") }
                    limit = value
                }
                action = .listGroups(after: request.query["start"], limit: limit)
            case (let group?, true, _, _): action = .delete(group: group)
            case (_?, false, false, false): throw .invalidParameter("use either add or remove, not both")
            case (let group?, false, false, true): action = .add(group: group, channels: adding)
            case (let group?, false, true, false): action = .remove(group: group, channels: removing)
            case (let group?, false, true, true): action = .listChannels(group: group)
            }
            var call = ChannelGroupRequest(subscribeKey: s[3], action: action, uuid: Self.uuid(request),
                                           authKey: request.query["auth"])
            call.signature = request.signed
            let authorized = try node.authorizeGroups(call)
            if let result = try node.channelGroupsNow(authorized) { return .reply(Self.render(result)) }
            let node = self.node
            return later(.object(service: "channel-registry")) { () async throws(PubNodeError) in
                Self.render(try await node.channelGroups(authorized))
            }
        }
    }

    /// A channel-registry result in PubNub's shape.
    private static func render(_ result: ChannelGroupResult) -> HTTPReply {
            switch result {
            case .groups(let names, let next):
                let list = names.map(JSONText.string).joined(separator: ",")
                let more = next.map { #","next":\#(JSONText.string($0))"# } ?? ""
                return .json(#"{"status":200,"payload":{"groups":[\#(list)],"namespace":""\#(more)},"service":"channel-registry","error":false}"#)
            case .channels(let group, let channels):
                let list = channels.map(JSONText.string).joined(separator: ",")
                return .json(#"{"status":200,"payload":{"channels":[\#(list)],"group":\#(JSONText.string(group))},"service":"channel-registry","error":false}"#)
            case .done:
                return .ok(service: "channel-registry")
            }
    }
}
