import NIOCore
import NIOPosix

/// A handler holding requests that wait for Redis: when the connection fails or closes, every
/// one of them fails, and nothing more is accepted.
protocol RedisPendingHandler: ChannelInboundHandler {
    /// Fails every pending request with `error` and refuses new ones.
    func failAll(_ error: any Error)
}

extension RedisPendingHandler {
    /// A framing error says what broke; anything else (a reset, a timeout) lost the connection.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(error as? RedisError ?? RedisError.connectionClosed)
        context.close(promise: nil)
    }

    /// The connection closed: pending requests fail with `connectionClosed`.
    func channelInactive(context: ChannelHandlerContext) {
        failAll(RedisError.connectionClosed)
        context.fireChannelInactive()
    }
}

/// Opens a TCP connection to Redis with the RESP decoder and `handler` in its pipeline.
func connectRedisChannel(to address: RedisAddress, on group: any EventLoopGroup, timeout: TimeAmount,
                         handler: @escaping @Sendable () -> any ChannelHandler) async throws -> any Channel {
    try await ClientBootstrap(group: group)
        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        // A peer that vanished without a reset (host down, partition) is noticed in about 10 s.
        .channelOption(.socketOption(.so_keepalive), value: 1)
        .channelOption(.tcpOption(.init(rawValue: 4)), value: 5)   // TCP_KEEPIDLE
        .channelOption(.tcpOption(.init(rawValue: 5)), value: 2)   // TCP_KEEPINTVL
        .channelOption(.tcpOption(.init(rawValue: 6)), value: 3)   // TCP_KEEPCNT
        .connectTimeout(timeout)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(ByteToMessageHandler(RESPDecoder()))
                try sync.addHandler(handler())
            }
        }
        .connect(host: address.host, port: address.port).get()
}
