import NIOCore

/// The pub/sub side of RESP2: confirmations completing requests, and pushed messages.
///
/// Invariant: Redis confirms the names of each (P)(UN)SUBSCRIBE in the order written, one push per
/// name, so the head of `pending` is always the request the next confirmation belongs to; pushed
/// messages (`message`, `pmessage`) may arrive between confirmations and never complete a request.
final class RedisSubscriberHandler: ChannelDuplexHandler, RedisPendingHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = Request
    typealias OutboundOut = ByteBuffer

    enum Kind: String {
        case auth, subscribe, unsubscribe, psubscribe, punsubscribe
    }

    struct Request {
        var kind: Kind
        var arguments: [RESPArgument]
        var confirmations: Int
        var promise: EventLoopPromise<Void>
    }

    private let onMessage: @Sendable (RedisPushMessage) -> Void
    private var pending = CircularBuffer<(kind: Kind, remaining: Int, promise: EventLoopPromise<Void>)>()
    private var closed = false

    init(onMessage: @escaping @Sendable (RedisPushMessage) -> Void) { self.onMessage = onMessage }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard !closed else {
            request.promise.fail(RedisError.connectionClosed)
            promise?.fail(RedisError.connectionClosed)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: 64)
        buffer.writeRESPCommand(request.arguments)
        pending.append((request.kind, request.confirmations, request.promise))
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = unwrapInboundIn(data)
        switch value {
        case .array(let items) where items.count >= 3:
            let kind = items[0].string ?? ""
            if kind == "message", let channel = items[1].string, let payload = items[2].bytes {
                onMessage(RedisPushMessage(channel: channel, pattern: nil, payload: payload))
            } else if kind == "pmessage", items.count == 4, let pattern = items[1].string, let channel = items[2].string,
                      let payload = items[3].bytes {
                onMessage(RedisPushMessage(channel: channel, pattern: pattern, payload: payload))
            } else if let confirmed = Kind(rawValue: kind) {
                confirm(confirmed, context: context)
            }
        case .simpleString where pending.first?.kind == .auth:
            confirm(.auth, context: context)
        case .error(let text):
            if let head = pending.popFirst() { head.promise.fail(RedisError.reply(text)) }
        default:
            break
        }
    }

    private func confirm(_ kind: Kind, context: ChannelHandlerContext) {
        guard var head = pending.first, head.kind == kind else {
            failAll(RedisError.protocolViolation("unexpected \(kind.rawValue) confirmation"))
            context.close(promise: nil)
            return
        }
        head.remaining -= 1
        if head.remaining == 0 {
            pending.removeFirst()
            head.promise.succeed()
        } else {
            pending[pending.startIndex] = head
        }
    }


    func failAll(_ error: any Error) {
        closed = true
        while let head = pending.popFirst() { head.promise.fail(error) }
    }
}
