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
/// the clock and the count; `RequestProgressEvent`s from the HTTP handler stop them. One repeated
/// check per connection (every quarter of the timeout), not a timer per request, so a request
/// costs a few stores and no allocation. Bytes of a pipelined request that arrive in the same
/// read as the end of the one before are not counted (the idle timeout still bounds them).
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let timeout: TimeAmount
    private let maxHeadBytes: Int
    /// When the request now arriving sent its first byte; nil between requests.
    private var arrivingSince: NIODeadline?
    /// Bytes read since then while its head is incomplete.
    private var headBytes = 0
    private var headComplete = false
    private var refused = false
    private var check: RepeatedTask?

    /// A deadline of `timeout` and a head of at most `maxHeadBytes` for each request.
    init(timeout: TimeAmount, maxHeadBytes: Int) {
        self.timeout = timeout
        self.maxHeadBytes = maxHeadBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let interval = TimeAmount.nanoseconds(max(250_000_000, timeout.nanoseconds / 4))
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            handler.value.expireIfLate(context: bound.value)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
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
        // Checked after decoding: a head and body that arrive together are judged by the head alone.
        if arrivingSince != nil, !headComplete, headBytes > maxHeadBytes {
            refuse(.requestHeaderFieldsTooLarge, "Request head over \(maxHeadBytes) bytes", context: context)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let progress = event as? RequestProgressEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch progress {
        case .head: headComplete = true
        case .end: arrivingSince = nil
        }
        promise?.succeed()
    }

    /// Answers 408 and closes when the request now arriving has taken longer than the timeout.
    private func expireIfLate(context: ChannelHandlerContext) {
        guard let since = arrivingSince, context.eventLoop.now - since > timeout, context.channel.isActive else { return }
        refuse(.requestTimeout, "Request not received in time", context: context)
    }

    /// Answers `status` and closes; nothing more is read from this connection.
    private func refuse(_ status: HTTPResponseStatus, _ message: String, context: ChannelHandlerContext) {
        refused = true
        check?.cancel()
        check = nil
        arrivingSince = nil
        let reply = ErrorResponses.object(status: status, message: message)
        let bytes = HTTPResponseWriter.serialize(reply, minorVersion: 1, keepAlive: false, allocator: context.channel.allocator)
        context.writeAndFlush(NIOAny(bytes)).whenComplete { _ in context.close(promise: nil) }
    }
}
