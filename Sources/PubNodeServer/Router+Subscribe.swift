import PubNodeCore

extension Router {
    /// `GET /v2/subscribe/{sub}/{channels}/0` with `tt`, `tr`, `channel-group`, `uuid`, `heartbeat`,
    /// `state` and `filter-expr`.
    func subscribe(_ request: PubNubRequest) -> RouteAction {
        do {
            let subscribeKey = request.segments[2]
            let broker = try service.keyset(subscribeKey)
            let channelNames = request.segments[3].split(separator: ",").map(String.init)
            let groupNames = request.list("channel-group")
            guard !channelNames.isEmpty || !groupNames.isEmpty else {
                throw PubNodeError.invalidParameter("subscribe needs at least one channel or channel group")
            }
            let subscription = try Subscription(channelNames: channelNames, groupNames: groupNames, limits: service.limits)
            var cursor = Timetoken.zero
            if let tt = request.query["tt"] {
                guard let parsed = Timetoken(parsing: tt[...]) else {
                    throw PubNodeError.invalidParameter("tt must be a timetoken (a non-negative integer)")
                }
                cursor = parsed
            }
            if let tr = request.query["tr"], Int(tr) == nil {
                throw PubNodeError.invalidParameter("tr must be an integer region")
            }
            if let heartbeat = try request.integer("heartbeat"), heartbeat < 0 {
                throw PubNodeError.invalidParameter("heartbeat must be a non-negative number of seconds")
            }
            if let state = request.query["state"], !JSONValidator().isValid(Array(state.utf8)) {
                throw PubNodeError.invalidParameter("state must be a JSON object")
            }
            try service.authorizer.authorize(AccessRequest(
                operation: .subscribe, subscribeKey: subscribeKey, channels: channelNames, groups: groupNames,
                uuid: request.query["uuid"], authKey: request.query["auth"]))
            return .subscribe(SubscribePlan(broker: broker, subscription: subscription, cursor: cursor, region: region))
        } catch let error as PubNodeError {
            return refuse(error, .object(service: "Subscribe"))
        } catch {
            return refuse(.invalidParameter("\(error)"), .object(service: "Subscribe"))
        }
    }
}
