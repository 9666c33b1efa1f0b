import NIOCore
import NIOHTTP1
import PubNodeCore

/// What the connection handler should do with a routed request.
public enum RouteAction: Sendable {
    /// Answer at once.
    case reply(HTTPReply)
    /// Answer at once, then wake these waiters (a publish).
    case published(HTTPReply, waiters: [any Waiter])
    /// Answer a subscribe: at once when messages are ready, else park it.
    case subscribe(SubscribePlan)
    /// Wake these waiters now and answer later: `start` runs once and calls its argument exactly
    /// once, on any thread (a strict-mode publish waiting for its history commit).
    case deferred(@Sendable (@escaping @Sendable (HTTPReply) -> Void) -> Void, waiters: [any Waiter])
}

/// A validated subscribe, ready to answer or park.
public struct SubscribePlan: Sendable {
    /// The keyset's broker.
    public var broker: any KeysetBroker
    /// What is listened to.
    public var subscription: Subscription
    /// The client's cursor (`tt`); zero means handshake.
    public var cursor: Timetoken
    /// The region to report in timetoken objects.
    public var region: Int
    /// Waiters to wake once the request is handled (for example, subscribers of presence events
    /// this subscribe caused).
    public var wake: [any Waiter] = []
}

/// Maps PubNub's wire protocol onto `Node`. Pure: no sockets, so it is tested directly.
public struct Router: Sendable {
    /// The domain node.
    public let node: Node
    /// The region reported in timetoken objects.
    public let region: Int
    /// Bearer token of the `/v1/admin` endpoints; nil refuses them.
    public let adminToken: String?

    /// Creates a router.
    public init(node: Node, region: Int = 1, adminToken: String? = nil) {
        self.node = node
        self.region = region
        self.adminToken = adminToken
    }

    /// Routes a request. Every refusal comes back as a PubNub-shaped reply; nothing throws.
    public func route(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        switch (request.method, s.first ?? "") {
        case (.OPTIONS, _):
            return .reply(.json("{}"))
        case (.GET, "time") where s.count == 2:
            return .reply(.json("[\(node.clock.current())]"))
        case (.GET, "publish") where s.count == 7, (.POST, "publish") where s.count == 6 || s.count == 7:
            return publish(request, kind: .message)
        case (.GET, "signal") where s.count == 7, (.POST, "signal") where s.count == 6 || s.count == 7:
            return publish(request, kind: .signal)
        case (.GET, "v2") where s.count == 5 && s[1] == "subscribe":
            return subscribe(request)
        case (_, "v1") where s.count >= 5 && s[1] == "channel-registration" && s[2] == "sub-key" && s[4] == "channel-group":
            return channelGroups(request)
        case (.GET, "v2") where s.count >= 4 && s[1] == "presence" && s[2] == "sub-key":
            return presence(request)
        case (.GET, "v2") where s.count == 6 && s[1] == "history":
            return historyV2(request)
        case (_, "v3") where s.count == 6 && (s[1] == "history" || s[1] == "history-with-actions"):
            return historyV3(request)
        case (_, "v1") where s.count >= 5 && s[1] == "blocks" && s[2] == "sub-key":
            return blocks(request)
        case (_, "v1") where s.count >= 3 && s[1] == "admin" && s[2] == "hooks":
            return hooksAdmin(request)
        default:
            return .reply(ErrorResponses.object(status: .notFound, message: "Not Found: no such endpoint"))
        }
    }

    /// Converts a thrown domain error to a reply of the given shape.
    func refuse(_ error: PubNodeError, _ shape: ErrorResponses.Shape) -> RouteAction {
        .reply(ErrorResponses.reply(error, shape: shape, timetoken: node.clock.current()))
    }
}
