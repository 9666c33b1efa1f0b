import NIOCore
import NIOPosix
import Synchronization

/// One request/response connection to Redis: commands are pipelined (any number in flight, answered
/// in order) and may be sent from any thread.
public final class RedisConnection: Sendable {
    /// The channel carrying the connection.
    let channel: any Channel
    /// A flush is scheduled on the channel's loop: commands sent from that loop meanwhile are
    /// written and go out together, once the loop has served what it is serving.
    private let flushScheduled = Atomic<Bool>(false)

    private init(channel: any Channel) { self.channel = channel }

    /// Connects to `address` on `group`, authenticates and selects the database.
    /// `timeout` bounds the TCP connect.
    public static func connect(to address: RedisAddress, on group: any EventLoopGroup,
                               timeout: TimeAmount = .seconds(5)) async throws -> RedisConnection {
        let channel = try await connectRedisChannel(to: address, on: group, timeout: timeout) { RedisCommandHandler() }
        let connection = RedisConnection(channel: channel)
        do {
            try await connection.prepare(for: address)
        } catch {
            try? await channel.close()
            throw error
        }
        return connection
    }

    /// `AUTH` and `SELECT` as the address asks.
    func prepare(for address: RedisAddress) async throws {
        if let auth = address.authCommand { _ = try await send(auth) }
        if address.database != 0 { _ = try await send(["SELECT", .integer(Int64(address.database))]) }
    }

    /// Sends one command; the future completes with its reply, or fails with `RedisError.reply`
    /// (an error reply) or `connectionClosed`.
    public func sendCommand(_ arguments: [RESPArgument]) -> EventLoopFuture<RESPValue> {
        let promise = channel.eventLoop.makePromise(of: RESPValue.self)
        let request = RedisRequest(arguments: arguments, promise: promise)
        guard channel.eventLoop.inEventLoop else {
            channel.writeAndFlush(request).cascadeFailure(to: promise)
            return promise.futureResult
        }
        // On the connection's own loop (the HTTP front's, for a publish): the commands of every
        // request the loop serves in one pass leave in one write.
        channel.write(request).cascadeFailure(to: promise)
        if !flushScheduled.exchange(true, ordering: .acquiringAndReleasing) {
            channel.eventLoop.execute { [self] in
                flushScheduled.store(false, ordering: .releasing)
                channel.flush()
            }
        }
        return promise.futureResult
    }

    /// Sends one command and waits for its reply.
    public func send(_ arguments: [RESPArgument]) async throws -> RESPValue {
        try await sendCommand(arguments).get()
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Completes when the connection has closed, for whatever reason.
    public var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Closes the connection; pending commands fail with `connectionClosed`.
    public func close() async {
        try? await channel.close()
    }
}
