import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import PubNodeCore

/// The per-connection HTTP handler: reads requests, routes them, answers, and holds a parked
/// subscribe as connection state until a publish wakes it, it times out, or the client leaves.
final class PubNodeHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: Router
    private let limits: Limits
    private var context: ChannelHandlerContext?
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var refusingBody = false
    private var draining = false
    private var parked: (poll: ParkedPoll, plan: SubscribePlan, timeout: Scheduled<Void>)?

    init(router: Router) {
        self.router = router
        self.limits = router.service.limits
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseParked()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseParked()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body = nil
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limits.maxBodyBytes {
                refuseBody(context: context)
            }
        case .body(var chunk):
            guard !refusingBody else { return }
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
            if body!.readableBytes > limits.maxBodyBytes { refuseBody(context: context) }
        case .end:
            guard !refusingBody, let head else { return }
            dispatch(head: head, context: context)
        }
    }

    /// The server is draining: answer a parked long-poll now with its unchanged cursor and close.
    func quiesce() {
        draining = true
        if let parked {
            answer(parked.poll, deliveries: [], next: parked.plan.cursor)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is NIOHTTPDecompression.DecompressionError, head != nil, !refusingBody {
            refusingBody = true
            write(ErrorResponses.object(status: .badRequest, message: "Invalid gzip body or body too large"),
                  context: context, close: true)
            return
        }
        context.close(promise: nil)
    }

    private func refuseBody(context: ChannelHandlerContext) {
        refusingBody = true
        body = nil
        let reply = ErrorResponses.object(status: .payloadTooLarge,
                                          message: "Request body over \(limits.maxBodyBytes) bytes")
        write(reply, context: context, close: true)
    }

    private func dispatch(head: HTTPRequestHead, context: ChannelHandlerContext) {
        let request: PubNubRequest
        do {
            request = try PubNubRequest(method: head.method, uri: head.uri, body: body)
        } catch {
            let publishing = head.uri.hasPrefix("/publish/") || head.uri.hasPrefix("/signal/")
            let shape: ErrorResponses.Shape = publishing ? .publish : .object(service: "Balancer")
            write(ErrorResponses.reply(error, shape: shape, timetoken: router.service.clock.current()), context: context)
            return
        }
        body = nil
        switch router.route(request) {
        case .reply(let reply):
            write(reply, context: context)
        case .published(let reply, let waiters):
            write(reply, context: context)
            WakeBatcher.wake(waiters)
        case .subscribe(let plan):
            subscribe(plan, context: context)
            WakeBatcher.wake(plan.wake)
        }
    }

    private func subscribe(_ plan: SubscribePlan, context: ChannelHandlerContext) {
        if plan.cursor == .zero {
            respond(plan, deliveries: [], next: plan.broker.currentTimetoken())
            return
        }
        let poll = ParkedPoll(owner: self, eventLoop: context.eventLoop)
        if let ready = plan.broker.park(poll, on: plan.subscription, after: plan.cursor) {
            respond(plan, deliveries: ready.deliveries, next: ready.next)
            return
        }
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(Int64(limits.longPollTimeoutSeconds))) { [weak self] in
            guard let self, let parked = self.parked, parked.poll === poll else { return }
            self.answer(poll, deliveries: [], next: parked.plan.cursor)
        }
        parked = (poll, plan, timeout)
    }

    /// A publish woke `poll` (on this event loop): answer with what is ready, or re-park if nothing is.
    func pollWoken(_ poll: ParkedPoll) {
        guard let parked, parked.poll === poll else { return }
        let plan = parked.plan
        let ready = plan.broker.collect(plan.subscription, after: plan.cursor)
        if !ready.deliveries.isEmpty {
            answer(poll, deliveries: ready.deliveries, next: ready.next)
            return
        }
        // Nothing newer after all (say the channel left the group): wait again. Registering before
        // reading again means a publish racing with this is either read now or wakes the poll.
        poll.rearm()
        if let ready = plan.broker.park(poll, on: plan.subscription, after: plan.cursor) {
            answer(poll, deliveries: ready.deliveries, next: ready.next)
        }
    }

    private func answer(_ poll: ParkedPoll, deliveries: [Delivery], next: Timetoken) {
        guard let parked, parked.poll === poll else { return }
        releaseParked()
        respond(parked.plan, deliveries: deliveries, next: next)
    }

    private func releaseParked() {
        guard let parked else { return }
        self.parked = nil
        parked.timeout.cancel()
        parked.plan.broker.cancel(parked.poll, on: parked.plan.subscription)
    }

    private func respond(_ plan: SubscribePlan, deliveries: [Delivery], next: Timetoken) {
        guard let context else { return }
        let body = SubscribeResponse.render(deliveries, next: next, region: plan.region, allocator: context.channel.allocator)
        write(HTTPReply(body: body), context: context)
    }

    private func write(_ reply: HTTPReply, context: ChannelHandlerContext, close: Bool = false) {
        let keepAlive = !close && !draining && (head?.isKeepAlive ?? false)
        var headers = ResponseHeaders.standard
        headers.add(name: "Content-Length", value: String(reply.body.readableBytes))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let version = head?.version ?? .http1_1
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: reply.status, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(reply.body))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
        head = nil
    }
}

/// Headers every response carries (CORS for browser SDKs, JSON type, no caching).
enum ResponseHeaders {
    static let standard: HTTPHeaders = [
        "Content-Type": "application/json; charset=UTF-8",
        "Cache-Control": "no-cache",
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
        "Access-Control-Allow-Headers": "Origin, X-Requested-With, Content-Type, Accept, Content-Encoding",
    ]
}
