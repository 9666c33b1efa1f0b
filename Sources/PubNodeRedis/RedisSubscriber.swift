import NIOCore
import NIOPosix

/// A message Redis pushed to a subscriber connection.
public struct RedisPushMessage: Sendable {
    /// The Redis channel it was published to.
    public var channel: String
    /// The pattern that matched, for a `PSUBSCRIBE`.
    public var pattern: String?
    /// The published bytes.
    public var payload: ByteBuffer
}

/// A dedicated pub/sub connection: `SUBSCRIBE`/`PSUBSCRIBE` and their undoing, each completing when
/// Redis has confirmed every name, and pushed messages handed to `onMessage` on the connection's
/// event loop, in the order Redis sent them.
public final class RedisSubscriber: Sendable {
    let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    /// Connects to `address` (authenticating as it says; pub/sub ignores the database number).
    public static func connect(to address: RedisAddress, on group: any EventLoopGroup, timeout: TimeAmount = .seconds(5),
                               onMessage: @escaping @Sendable (RedisPushMessage) -> Void) async throws -> RedisSubscriber {
        let channel = try await connectRedisChannel(to: address, on: group, timeout: timeout) {
            RedisSubscriberHandler(onMessage: onMessage)
        }
        let subscriber = RedisSubscriber(channel: channel)
        if let auth = address.authCommand {
            do {
                try await subscriber.request(.auth, auth, count: 1).get()
            } catch {
                try? await channel.close()
                throw error
            }
        }
        return subscriber
    }

    /// Subscribes to `channels`; completes once Redis confirmed them all.
    public func subscribe(_ channels: [String]) -> EventLoopFuture<Void> {
        request(.subscribe, ["SUBSCRIBE"] + channels.map { .text($0) }, count: channels.count)
    }

    /// Unsubscribes from `channels`; completes once Redis confirmed them all.
    public func unsubscribe(_ channels: [String]) -> EventLoopFuture<Void> {
        request(.unsubscribe, ["UNSUBSCRIBE"] + channels.map { .text($0) }, count: channels.count)
    }

    /// Subscribes to glob `patterns`; completes once Redis confirmed them all.
    public func psubscribe(_ patterns: [String]) -> EventLoopFuture<Void> {
        request(.psubscribe, ["PSUBSCRIBE"] + patterns.map { .text($0) }, count: patterns.count)
    }

    /// Unsubscribes from glob `patterns`; completes once Redis confirmed them all.
    public func punsubscribe(_ patterns: [String]) -> EventLoopFuture<Void> {
        request(.punsubscribe, ["PUNSUBSCRIBE"] + patterns.map { .text($0) }, count: patterns.count)
    }

    private func request(_ kind: RedisSubscriberHandler.Kind, _ arguments: [RESPArgument], count: Int) -> EventLoopFuture<Void> {
        guard count > 0 else { return channel.eventLoop.makeSucceededVoidFuture() }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let request = RedisSubscriberHandler.Request(kind: kind, arguments: arguments, confirmations: count, promise: promise)
        channel.writeAndFlush(request).cascadeFailure(to: promise)
        return promise.futureResult
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Completes when the connection has closed.
    public var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }
}
