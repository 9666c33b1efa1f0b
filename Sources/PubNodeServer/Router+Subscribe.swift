import NIOCore
import PubNodeCore

extension Router {
    /// `GET /v2/subscribe/{sub}/{channels}/0` with `tt`, `tr`, `channel-group`, `uuid`, `heartbeat`,
    /// `state` and `filter-expr`.
    func subscribe(_ request: PubNubRequest) -> RouteAction {
        answering(.object(service: "Subscribe"), keyset: request.segments[2]) { () throws(PubNodeError) in
            try start(node.subscribe(Self.subscribeRequest(request)))
        }
    }

    /// A subscribe already decoded and prepared (a connection's repeated long-poll, see
    /// `RepeatedSubscribe`), from `cursor`: authorized and answered exactly as `subscribe(_:)`
    /// would the same target. `receipt` is what the connection's last poll of `prepared` left of
    /// its presence refresh (`PresenceReceipt`), updated for the next.
    func subscribe(_ prepared: PreparedSubscribe, cursor: Timetoken, presence receipt: inout PresenceReceipt?) -> RouteAction {
        answering(.object(service: "Subscribe"), keyset: prepared.request.subscribeKey) { () throws(PubNodeError) in
            try start(node.subscribe(prepared, cursor: cursor, presence: &receipt))
        }
    }

    /// `subscribe(_:cursor:presence:)` for a poll repeating `last`, the long-poll the same
    /// connection's previous poll of `prepared` started: nil when `last` serves again unchanged
    /// but for its cursor (`Node.subscribe(_:cursor:presence:repeating:)`), else the action.
    func subscribe(_ prepared: PreparedSubscribe, cursor: Timetoken, presence receipt: inout PresenceReceipt?,
                   repeating last: borrowing LongPoll) -> RouteAction? {
        do throws(PubNodeError) {
            guard let start = try node.subscribe(prepared, cursor: cursor, presence: &receipt, repeating: last) else {
                return nil
            }
            return self.start(start)
        } catch {
            return refusal(error, .object(service: "Subscribe"), keyset: prepared.request.subscribeKey)
        }
    }

    /// The decoded subscribe when `request` routes to the subscribe endpoint and decodes without
    /// error; nil otherwise (`route` then answers it, refusals included).
    func decodedSubscribe(_ request: PubNubRequest) -> SubscribeRequest? {
        guard !metricsListener, Self.targetsSubscribe(request) else { return nil }
        return try? Self.subscribeRequest(request)
    }

    /// Whether `request` is `GET /v2/subscribe/{sub}/{channels}/0` (what `route` sends to `subscribe`).
    static func targetsSubscribe(_ request: PubNubRequest) -> Bool {
        let s = request.segments
        return request.method == .GET && s.count == 5 && s[0] == "v2" && s[1] == "subscribe"
    }

    /// Decodes a subscribe's path and query.
    static func subscribeRequest(_ request: PubNubRequest) throws(PubNodeError) -> SubscribeRequest {
        let cursor = try request.timetoken("tt") ?? .zero
        if let tr = request.query["tr"], Int(tr) == nil {
            throw .invalidParameter("tr must be an integer region")
        }
        var subscribe = SubscribeRequest(
            subscribeKey: request.segments[2], channels: request.segments[3].commaSeparatedItems(),
            groups: request.list("channel-group"), cursor: cursor, uuid: uuid(request),
            heartbeatSeconds: try heartbeatSeconds(request), state: request.query["state"].map { Array($0.utf8) },
            authKey: request.query["auth"])
        subscribe.signature = request.signed
        subscribe.filter = request.query["filter-expr"]
        return subscribe
    }

    private func start(_ subscribe: consuming SubscribeStart) -> RouteAction {
        // Consumed, so the long-poll moves into the action without a copy (each copy retains every
        // reference it holds).
        switch consume subscribe {
        case .handshake(let next):
            let empty = DeliveryBatch(deliveries: [], next: next)
            return .reply(HTTPReply(body: SubscribeResponse.render(empty, region: region, allocator: ByteBufferAllocator())))
        case .poll(let poll):
            return .poll(poll)
        }
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
