import PubNodeCore

extension Router {
    /// `/v1/channel-registration/sub-key/{sub}/channel-group[/{group}[/remove]]` with `add=` / `remove=`.
    func channelGroups(_ request: PubNubRequest) -> RouteAction {
        let shape = ErrorResponses.Shape.object(service: "channel-registry")
        do {
            let s = request.segments
            let subscribeKey = s[3]
            let broker = try node.keyset(subscribeKey)
            let group = s.count >= 6 ? s[5] : nil
            let deleting = s.count == 7 && s[6] == "remove"
            guard s.count <= 6 || deleting, request.method == .GET else {
                return .reply(ErrorResponses.object(status: .notFound, message: "Not Found: no such endpoint"))
            }
            let adding = request.list("add")
            let removing = request.list("remove")
            let writes = deleting || !adding.isEmpty || !removing.isEmpty
            try node.authorizer.authorize(AccessRequest(
                operation: writes ? .channelGroupWrite : .channelGroupRead, subscribeKey: subscribeKey,
                channels: adding + removing, groups: group.map { [$0] } ?? [],
                uuid: request.query["uuid"], authKey: request.query["auth"]))
            guard let group else {
                let names = broker.groupNames().map(JSONText.string).joined(separator: ",")
                return .reply(.json(#"{"status":200,"payload":{"groups":[\#(names)],"namespace":""},"service":"channel-registry","error":false}"#))
            }
            if deleting {
                try broker.deleteGroup(group)
                return .reply(.ok(service: "channel-registry"))
            }
            if !adding.isEmpty, !removing.isEmpty {
                throw PubNodeError.invalidParameter("use either add or remove, not both")
            }
            if !adding.isEmpty {
                try broker.addChannels(adding, toGroup: group)
                return .reply(.ok(service: "channel-registry"))
            }
            if !removing.isEmpty {
                try broker.removeChannels(removing, fromGroup: group)
                return .reply(.ok(service: "channel-registry"))
            }
            let channels = try broker.channels(inGroup: group).map(JSONText.string).joined(separator: ",")
            return .reply(.json(#"{"status":200,"payload":{"channels":[\#(channels)],"group":\#(JSONText.string(group))},"service":"channel-registry","error":false}"#))
        } catch let error as PubNodeError {
            return refuse(error, shape)
        } catch {
            return refuse(.invalidParameter("\(error)"), shape)
        }
    }
}
