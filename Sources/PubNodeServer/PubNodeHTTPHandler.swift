import NIOCore
import NIOExtras
import NIOHTTP1
import NIOHTTPCompression
import PubNodeCore

/// The per-connection HTTP/1.1 handler: reads requests (parsed by NIO's llhttp-based decoder),
/// routes them, writes each answer as one buffer, and holds a parked subscribe as connection state
/// until a publish wakes it, it times out, or the client leaves.
///
/// Requests are answered strictly in order: a request pipelined behind a parked subscribe is queued
/// and handled once that subscribe has been answered.
final class PubNodeHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    /// Most request parts held behind a parked subscribe before the connection is closed.
    static let maxQueuedParts = 64

    let router: Router
    let limits: Limits
    var context: ChannelHandlerContext?
    var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var refusingBody = false
    private var draining = false
    var parked: (poll: ParkedPoll, plan: SubscribePlan, timeout: Scheduled<Void>)?
    private var queued: [HTTPServerRequestPart] = []
    /// A deferred answer is outstanding; requests behind it wait in `queued`.
    private var awaitingAnswer = false

    init(router: Router) {
        self.router = router
        self.limits = router.node.limits
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
        let part = unwrapInboundIn(data)
        guard parked == nil, !awaitingAnswer, queued.isEmpty else {
            queued.append(part)
            if queued.count > Self.maxQueuedParts { context.close(promise: nil) }
            return
        }
        handle(part, context: context)
    }

    private func handle(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            self.head = head
            self.body = nil
            self.refusingBody = false
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limits.maxBodyBytes {
                refuseBody(context: context)
            }
        case .body(var chunk):
            guard !refusingBody, head != nil else { return }
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
            if body!.readableBytes > limits.maxBodyBytes { refuseBody(context: context) }
        case .end:
            guard !refusingBody, let head else { return }
            dispatch(head: head, context: context)
        }
    }

    /// Handles requests queued behind a subscribe that has just been answered.
    private func replayQueued() {
        guard let context else { return }
        while parked == nil, !awaitingAnswer, !queued.isEmpty, context.channel.isActive {
            handle(queued.removeFirst(), context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            quiesce(context: context)
        } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, parked == nil, !awaitingAnswer {
            // Nothing read for longer than a long-poll lasts: a stalled or abandoned connection.
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The server is draining: answer a parked long-poll now with its unchanged cursor; close idle
    /// connections; a request being read is answered and then the connection closes.
    private func quiesce(context: ChannelHandlerContext) {
        draining = true
        if let parked {
            answer(parked.poll, deliveries: [], next: parked.plan.cursor)
        } else if !awaitingAnswer {
            // Idle, or a request still arriving (a client may hold one half-sent forever): close.
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard head != nil || error is HTTPParserError else {
            context.close(promise: nil)
            return
        }
        let message: String
        switch error {
        case is NIOHTTPDecompression.DecompressionError: message = "Invalid gzip body or body too large"
        case let parse as HTTPParserError: message = "Malformed HTTP request (\(parse))"
        default: message = "Malformed HTTP request"
        }
        if !refusingBody, parked == nil {
            refusingBody = true
            write(ErrorResponses.object(status: .badRequest, message: message), context: context, close: true)
        } else {
            context.close(promise: nil)
        }
    }

    private func refuseBody(context: ChannelHandlerContext) {
        refusingBody = true
        body = nil
        let reply = ErrorResponses.object(status: .payloadTooLarge, message: "Request body over \(limits.maxBodyBytes) bytes")
        write(reply, context: context, close: true)
    }

    private func dispatch(head: HTTPRequestHead, context: ChannelHandlerContext) {
        if head.method == .HEAD, !head.uri.hasPrefix("/time/") {
            // HEAD must not change anything; only the time endpoint is answered without a body.
            write(ErrorResponses.object(status: .methodNotAllowed, message: "HEAD is answered for /time/0 only"),
                  context: context)
            return
        }
        var request: PubNubRequest
        do {
            request = try PubNubRequest(method: head.method == .HEAD ? .GET : head.method, uri: head.uri, body: body)
            if head.uri.hasPrefix("/v1/blocks/") || head.uri.hasPrefix("/v1/admin/") {
                for (name, value) in head.headers { request.headers[name.lowercased()] = value }
            }
        } catch {
            let publishing = head.uri.hasPrefix("/publish/") || head.uri.hasPrefix("/signal/")
            let shape: ErrorResponses.Shape = publishing ? .publish : .object(service: "Balancer")
            write(ErrorResponses.reply(error, shape: shape, timetoken: router.node.clock.current()), context: context)
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
        case .deferred(let start, let waiters):
            WakeBatcher.wake(waiters)
            awaitingAnswer = true
            let loop = context.eventLoop
            let handler = NIOLoopBound(self, eventLoop: loop)
            start { reply in
                loop.execute { handler.value.answerDeferred(reply) }
            }
        }
    }

    /// Writes a deferred answer on this loop, if the connection is still there to take it.
    private func answerDeferred(_ reply: HTTPReply) {
        guard awaitingAnswer else { return }
        awaitingAnswer = false
        guard let context, context.channel.isActive else { return }
        write(reply, context: context)
    }

    /// Writes `reply` as one buffer, closes when the request or the server asks for it, and moves
    /// on to any request queued behind it.
    func write(_ reply: HTTPReply, context: ChannelHandlerContext, close: Bool = false) {
        let keepAlive = !close && self.keepAlive
        let bytes = HTTPResponseWriter.serialize(reply, minorVersion: head?.version.minor ?? 1, keepAlive: keepAlive,
                                                 includeBody: head?.method != .HEAD, allocator: context.channel.allocator)
        writeSerialized(bytes, keepAlive: keepAlive, context: context)
    }

    /// Whether the current request's connection stays open after its answer.
    var keepAlive: Bool { !draining && (head?.isKeepAlive ?? false) }

    /// Writes a complete serialized response, then closes or moves on to queued requests.
    func writeSerialized(_ bytes: ByteBuffer, keepAlive: Bool, context: ChannelHandlerContext) {
        let done = context.writeAndFlush(wrapOutboundOut(bytes))
        head = nil
        if !keepAlive {
            queued.removeAll()
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else if !queued.isEmpty {
            replayQueued()
        }
    }
}
