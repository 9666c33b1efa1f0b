import NIOCore
import NIOHTTP1

/// Sent outbound by the connection's HTTP handler as a request's parts are decoded.
enum RequestProgressEvent {
    /// The request's head is complete.
    case head
    /// The whole request has arrived.
    case end
}

/// Bounds how a request arrives, before the HTTP decoder spends anything on it:
/// - **time**: from its first byte to its last (head and body) it may take `timeout`, so a client
///   cannot hold a connection by dripping a byte now and then (each byte would reset an idle
///   timer); a late request is answered 408 and the connection closed;
/// - **head size**: bytes read while its head is incomplete may not pass `maxHeadBytes`, so a
///   head of thousands of fields is refused (431, close) after 64 KiB instead of being parsed.
///
/// It sits before the decoder and sees raw bytes: the first bytes after a complete request start
/// the clock and the count; `RequestProgressEvent`s from the HTTP handler stop them. A request
/// that arrives whole in one read (nearly all of them) costs a few stores and no timer; only one
/// still incomplete after a read schedules a single check at its deadline, and idle or parked
/// connections carry none. Bytes of a pipelined request that arrive in the same read as the end
/// of the one before are not counted (the idle timeout still bounds them).
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let timeout: TimeAmount
    private let maxHeadBytes: Int
    private let metrics: HTTPMetrics?
    /// When the request now arriving sent its first byte; nil between requests.
    private var arrivingSince: NIODeadline?
    /// Bytes read since then while its head is incomplete.
    private var headBytes = 0
    private var headComplete = false
    private var refused = false
    /// The check scheduled for the request now arriving, if it needed one.
    private var check: Scheduled<Void>?

    /// A deadline of `timeout` and a head of at most `maxHeadBytes` for each request; refusals are
    /// counted in `metrics`.
    init(timeout: TimeAmount, maxHeadBytes: Int, metrics: HTTPMetrics? = nil) {
        self.timeout = timeout
        self.maxHeadBytes = maxHeadBytes
        self.metrics = metrics
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelCheck()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelCheck()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if arrivingSince == nil {
            arrivingSince = context.eventLoop.now
            headBytes = 0
            headComplete = false
        }
        if !headComplete { headBytes += unwrapInboundIn(data).readableBytes }
        context.fireChannelRead(data)
        guard let since = arrivingSince else { return }
        // Checked after decoding: a head and body that arrive together are judged by the head alone.
        if !headComplete, headBytes > maxHeadBytes {
            refuse(.requestHeaderFieldsTooLarge, "Request head over \(maxHeadBytes) bytes", context: context)
        } else if check == nil {
            scheduleCheck(at: since + timeout, context: context)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let progress = event as? RequestProgressEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch progress {
        case .head:
            headComplete = true
        case .end:
            arrivingSince = nil
            cancelCheck()
        }
        promise?.succeed()
    }

    /// One check at the deadline of the request now arriving.
    private func scheduleCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            handler.value.check = nil
            handler.value.expireIfLate(context: bound.value)
        }
    }

    private func cancelCheck() {
        check?.cancel()
        check = nil
    }

    /// Answers 408 and closes when the request now arriving has taken longer than the timeout.
    private func expireIfLate(context: ChannelHandlerContext) {
        guard let since = arrivingSince, context.channel.isActive else { return }
        guard context.eventLoop.now - since >= timeout else {
            scheduleCheck(at: since + timeout, context: context)
            return
        }
        refuse(.requestTimeout, "Request not received in time", context: context)
    }

    /// Answers `status` and closes; nothing more is read from this connection.
    private func refuse(_ status: HTTPResponseStatus, _ message: String, context: ChannelHandlerContext) {
        refused = true
        cancelCheck()
        arrivingSince = nil
        metrics?.record(.other, status: status.code, nanoseconds: nil)
        let reply = ErrorResponses.object(status: status, message: message)
        let bytes = HTTPResponseWriter.serialize(reply, minorVersion: 1, keepAlive: false, allocator: context.channel.allocator)
        // A lingering close: stop writing, keep reading (and discarding) for a moment, so a client
        // still sending its oversized head reads the refusal instead of a reset.
        let loop = context.eventLoop
        let bound = NIOLoopBound(context, eventLoop: loop)
        context.writeAndFlush(NIOAny(bytes)).whenComplete { _ in
            bound.value.close(mode: .output, promise: nil)
            loop.assumeIsolated().scheduleTask(in: Self.linger) { bound.value.close(promise: nil) }
        }
    }

    /// How long a refused connection keeps reading before it is closed.
    static let linger = TimeAmount.seconds(2)
}
