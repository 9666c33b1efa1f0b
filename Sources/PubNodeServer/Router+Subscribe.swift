import NIOCore
import PubNodeCore

extension Router {
    /// `GET /v2/subscribe/{sub}/{channels}/0` with `tt`, `tr`, `channel-group`, `uuid`, `heartbeat`,
    /// `state` and `filter-expr`. With a `uuid`, each request also refreshes that uuid's presence.
    func subscribe(_ request: PubNubRequest) -> RouteAction {
        do {
            let subscribeKey = request.segments[2]
            let broker = try node.keyset(subscribeKey)
            let channelNames = request.segments[3].split(separator: ",").map(String.init)
            let groupNames = request.list("channel-group")
            guard !channelNames.isEmpty || !groupNames.isEmpty else {
                throw PubNodeError.invalidParameter("subscribe needs at least one channel or channel group")
            }
            let subscription = try Subscription(channelNames: channelNames, groupNames: groupNames, limits: node.limits)
            let cursor = try request.timetoken("tt") ?? .zero
            if let tr = request.query["tr"], Int(tr) == nil {
                throw PubNodeError.invalidParameter("tr must be an integer region")
            }
            let timeout = try Self.heartbeatSeconds(request)
            let state = request.query["state"].map { Array($0.utf8) }
            try node.authorizer.authorize(AccessRequest(
                operation: .subscribe, subscribeKey: subscribeKey, channels: channelNames, groups: groupNames,
                uuid: request.query["uuid"], authKey: request.query["auth"]))
            var plan = SubscribePlan(broker: broker, subscription: subscription, cursor: cursor, region: region)
            guard let uuid = Self.uuid(request) else {
                if let state { _ = try PresenceState.keyed(state, limit: broker.presenceSettings.maxStateBytes) }
                return .subscribe(plan)
            }
            // Every poll, handshake or not, keeps the uuid present on what it listens to. A handshake
            // is answered here with a cursor taken *before* the presence change, so that a client
            // subscribed with presence also receives its own join on its first long-poll.
            let handshake = cursor == .zero ? broker.currentTimetoken() : nil
            let update = PresenceUpdate(uuid: uuid, subscription: subscription, timeoutSeconds: timeout, state: state)
            plan.wake = try broker.heartbeat(update)
            if let handshake {
                let body = SubscribeResponse.render([], next: handshake, region: region, allocator: ByteBufferAllocator())
                return .published(HTTPReply(body: body), waiters: plan.wake)
            }
            return .subscribe(plan)
        } catch let error as PubNodeError {
            return refuse(error, .object(service: "Subscribe"))
        } catch {
            return refuse(.invalidParameter("\(error)"), .object(service: "Subscribe"))
        }
    }
}
