import NIOCore

/// A command on its way to Redis and the promise its reply completes.
struct RedisRequest {
    /// The command's arguments (name first).
    var arguments: [RESPArgument]
    /// Completed with the reply, failed with `RedisError.reply` for an error reply.
    var promise: EventLoopPromise<RESPValue>
}

/// Matches replies to commands on a request/response connection (not a subscriber's).
///
/// Invariant: Redis answers the commands of one connection in the order they were written, so the
/// replies complete the pending promises first in, first out; any number may be in flight
/// (pipelining). When the connection closes or fails, every pending promise fails.
final class RedisCommandHandler: ChannelDuplexHandler, RedisPendingHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = ByteBuffer

    private var pending = CircularBuffer<EventLoopPromise<RESPValue>>(initialCapacity: 16)
    private var closed = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard !closed else {
            request.promise.fail(RedisError.connectionClosed)
            promise?.fail(RedisError.connectionClosed)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: 64)
        buffer.writeRESPCommand(request.arguments)
        pending.append(request.promise)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = unwrapInboundIn(data)
        guard let promise = pending.popFirst() else {
            // A reply nobody asked for: the stream is out of step; nothing after it can be trusted.
            failAll(RedisError.protocolViolation("unsolicited reply"))
            context.close(promise: nil)
            return
        }
        if case .error(let text) = value {
            promise.fail(RedisError.reply(text))
        } else {
            promise.succeed(value)
        }
    }


    func failAll(_ error: any Error) {
        closed = true
        while let promise = pending.popFirst() { promise.fail(error) }
    }
}
