import NIOCore
import NIOExtras
import NIOHTTP1
import PubNodeCore

/// The per-connection HTTP/1.1 handler: reads requests (parsed by `HTTPRequestParser`),
/// routes them to the node, writes each answer as one buffer, and holds a parked long-poll as
/// connection state until a publish wakes it, it times out, or the client leaves. Its state is one
/// `ConnectionState`; requests are answered strictly in order.
final class PubNodeHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Most request parts held behind an outstanding answer before the connection is closed.
    static let maxQueuedParts = 64

    // The stored properties are in the order a delivery reads them: what every poll and answer
    // reads first, what only some requests or the loop's clock read last. A fan-out wakes
    // thousands of connections whose handlers are no longer in cache; each line of a handler a
    // woken poll reads is one more wait for memory (Docs/performance.md, twenty-third series).

    /// What a wake or a read of this connection will touch, asked for ahead (`Prefetch`): NIO's
    /// context, channel and pipeline objects, then the handler itself (set once it is added).
    /// First, among the bytes a call into the handler reads anyway.
    var connectionPrefetch = PrefetchList()
    /// What a repeated poll reads of the kept subscribe (`RepeatedSubscribe`), asked for as its
    /// bytes arrive, before they are parsed (`prefetchForRead()`); refreshed as a poll parks.
    /// (The two lists are 80 bytes of each connection.)
    var readPrefetch = PrefetchList()
    let router: Router
    /// What the handler reads of the node's limits.
    let limits: ConnectionLimits
    var context: ChannelHandlerContext?
    var wakeQueue: LoopWakeQueue?
    /// The request metrics of the connection's loop, nil when metrics are off.
    var httpMetrics: HTTPMetrics.LoopShare?
    /// The parked-poll gauge of the connection's loop (set once the handler is added).
    var parkedPolls: LoopCount?
    /// Where the connection sits in its loop's `LoopClock`; nil when not registered.
    var clockSlot: Int?
    var state = ConnectionState()
    /// The connection's received bytes, read into requests.
    var parser: HTTPRequestParser
    /// The last response's buffer, serialized into again once the socket has let go of it
    /// (`responseBuffer(capacity:)`); nil while a poll is parked.
    var spareResponse: ByteBuffer?
    /// This connection's standing with the per-client limits.
    var client = ClientStanding()
    /// The idle and request-arrival clocks.
    var clocks = ConnectionClocks()
    /// The channel's allocator, read once (the channel's getter retains and releases on each call).
    var allocator = ByteBufferAllocator()

    init(router: Router) {
        self.router = router
        self.limits = ConnectionLimits(router.node.limits)
        self.parser = HTTPRequestParser(maxHeadBytes: router.node.limits.maxHeadBytes)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.allocator = context.channel.allocator
        let channel = context.channel, pipeline = context.pipeline
        connectionPrefetch.set(0, Prefetch.address(of: context), bytes: Prefetch.heapBytes(of: context))
        connectionPrefetch.set(1, Prefetch.address(of: channel), bytes: Prefetch.heapBytes(of: channel))
        connectionPrefetch.set(2, Prefetch.address(of: pipeline), bytes: Prefetch.heapBytes(of: pipeline))
        connectionPrefetch.set(3, Prefetch.address(of: self), bytes: Prefetch.heapBytes(of: self))
        httpMetrics = router.operations.metrics?.http.share(for: context.eventLoop)
        parkedPolls = router.operations.gauges.parkedPolls(on: context.eventLoop)
        let wakeQueue = router.wakeQueues.queue(for: context.eventLoop)
        self.wakeQueue = wakeQueue
        parser.bank = wakeQueue.heads
        if context.channel.isActive {
            admitClient(context: context)
            startClocks(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseParked()
        stopClocks()
        releaseClient()
        // Its kept parked poll refers back to this handler.
        state.lastSubscribe = nil
        readPrefetch.removeAll()
        connectionPrefetch.removeAll()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        admitClient(context: context)
        startClocks(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseParked()
        stopClocks()
        releaseClient()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        prefetchForRead()
        // Once the last answer is out (or a refusal), what still arrives is read and dropped.
        guard !state.closing else { return }
        if case .discarding = state.phase { return }
        clocks.active = true
        parser.append(unwrapInboundIn(data))
        do {
            while let part = try parser.next() {
                receive(part, context: context)
                if state.closing { return }
                if case .discarding = state.phase { return }
            }
        } catch {
            refuseMalformed(error, context: context)
            return
        }
        trackArrival(context: context)
    }

    /// Takes one parsed part: handled now, or queued behind an outstanding answer.
    private func receive(_ part: consuming HTTPRequestParser.Part, context: ChannelHandlerContext) {
        if case .end = part { clocks.arrivingSince = nil }
        // Handled now unless an answer is outstanding or earlier parts wait.
        guard !state.isAwaitingAnswer, state.queued.isEmpty else {
            state.queued.append(consume part)
            if state.queued.count > Self.maxQueuedParts {
                state.closing = true
                context.close(promise: nil)
            }
            return
        }
        handle(consume part, fresh: true, context: context)
    }

    /// Handles one part of the current request. `fresh`: the part is the one the parser has just
    /// given (not a queued one), so a head without a body can take its end from the parser at
    /// once and be dispatched without being kept (`HTTPRequestParser.takeEnd()`).
    private func handle(_ part: consuming HTTPRequestParser.Part, fresh: Bool = false,
                        context: ChannelHandlerContext) {
        // Switched on the part alone (a tuple with the phase would copy both), and consumed: the
        // head moves out of it rather than being copied.
        switch consume part {
        case .head(var head):
            let (fieldCount, contentLength) = (head.fieldCount, head.contentLength)
            let hasBody = head.chunked || (contentLength ?? 0) > 0
            if httpMetrics != nil { state.startedNanoseconds = NIODeadline.now().uptimeNanoseconds }
            // Complete at its head (the common case): dispatched now, its end taken with it, so
            // the head is never stored in the connection's state and taken back out. Whether it
            // has a body is the parser's to say: just after a head, only a bodiless request's end
            // can be taken.
            if fresh, fieldCount <= limits.maxHeaderCount, parser.takeEnd() {
                clocks.arrivingSince = nil
                state.beginAnswering(head)
                dispatch(head: head, body: nil, context: context)
                return
            }
            // A head kept while its body arrives keeps no received buffer (one that ends here is
            // taken back at its end, below, and dropped once dispatched).
            if hasBody { head.detachTarget() }
            state.begin(consume head)
            state.phase = .receiving(body: nil)
            if fieldCount > limits.maxHeaderCount {
                refuseHead(context: context, message: "More than \(limits.maxHeaderCount) header fields")
            } else if let length = contentLength, length > limits.maxBodyBytes {
                refuseBody(context: context)
            }
        case .body(var chunk):
            guard case .receiving(var body) = state.phase else { break }
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
            state.phase = .receiving(body: body)
            if body!.readableBytes > limits.maxBodyBytes { refuseBody(context: context) }
        case .end:
            guard case .receiving(let body) = state.phase, let head = state.takeHead() else { break }
            guard head.contentEncoding != .identity, let compressed = body, compressed.readableBytes > 0 else {
                dispatch(head: head, body: body, context: context)
                return
            }
            do {
                let inflated = try BodyInflater.inflate(compressed, limit: limits.maxBodyBytes,
                                                        allocator: allocator)
                dispatch(head: head, body: inflated, context: context)
            } catch {
                state.phase = .discarding
                write(ErrorResponses.object(status: .badRequest, message: "Invalid gzip body or body too large"),
                      context: context, close: true)
            }
        }
        // Anything else (a body or end without a receiving head) is the rest of a refused
        // request, or parts without a head: dropped.
    }

    /// Handles requests queued behind an answer that has just been written.
    func replayQueued() {
        guard let context else { return }
        while !state.closing, !state.isAwaitingAnswer, !state.queued.isEmpty, context.channel.isActive {
            handle(state.queued.removeFirst(), context: context)
        }
    }

    /// Not passed on: this handler is the pipeline's last before NIO's tail, which does nothing
    /// with it, and passing it retains the tail's handler, one object that every connection of
    /// every event loop shares (a write to a line all loops write, for each read).
    func channelReadComplete(context: ChannelHandlerContext) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            quiesce(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The server is draining: answer a parked long-poll now with its unchanged cursor; close idle
    /// connections; a request being answered finishes and then the connection closes.
    private func quiesce(context: ChannelHandlerContext) {
        state.draining = true
        if let parked = state.parked {
            answer(parked, with: DeliveryBatch(deliveries: [], next: parked.cursor))
        } else if !state.isAwaitingAnswer {
            // Idle, or a request still arriving (a client may hold one half-sent forever): close.
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    /// Answers bytes that are not a valid request with the parser's status, then closes.
    private func refuseMalformed(_ failure: HTTPRequestParser.Failure, context: ChannelHandlerContext) {
        switch state.phase {
        case .idle, .receiving:
            state.phase = .discarding
            let message = failure.status == .badRequest ? "Malformed HTTP request (\(failure.message))" : failure.message
            write(ErrorResponses.object(status: failure.status, message: message), context: context, close: true)
        default:
            // An answer is outstanding: nothing can be said in order, so the connection closes.
            context.close(promise: nil)
        }
    }

    /// Refuses a request whose head is too large or has too many fields (431) and closes.
    private func refuseHead(context: ChannelHandlerContext, message: String) {
        state.phase = .discarding
        write(ErrorResponses.object(status: .requestHeaderFieldsTooLarge, message: message), context: context, close: true)
    }

    private func refuseBody(context: ChannelHandlerContext) {
        state.phase = .discarding
        let reply = ErrorResponses.object(status: .payloadTooLarge, message: "Request body over \(limits.maxBodyBytes) bytes")
        write(reply, context: context, close: true)
    }
}
