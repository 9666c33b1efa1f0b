import Logging
import NIOCore
import NIOPosix
import PubNodeCore
import Synchronization

/// A node's link to Redis in cluster mode: one command connection (pipelined) and one pub/sub
/// connection, both on one event loop, reconnected with backoff whenever either drops.
///
/// Invariant: everything the link reports (`onUp`, pushes) runs on `loop`, one at a time, so the
/// broker's reaction to a reconnect never interleaves with a push.
public final class RedisLink: Sendable {
    /// Where Redis is.
    public let address: RedisAddress
    /// The event loop both connections run on.
    public let loop: any EventLoop
    private let logger: Logger
    private let state = Mutex<State>(State())
    private let up = Atomic<Bool>(false)
    private let onPush: @Sendable (RedisLink, RedisPushMessage) -> Void
    private let onUp: @Sendable (RedisLink) -> Void
    private let onTime: @Sendable (_ redisNanoseconds: UInt64) -> Void

    private struct State {
        var connection: RedisConnection?
        var subscriber: RedisSubscriber?
        var stopped = false
        var attempt = 0
        /// Command connections of other event loops (the HTTP front's), by loop: a command sent
        /// from a loop and its reply stay on that loop's thread.
        var local: [ObjectIdentifier: LocalConnection] = [:]
        /// The liveness probe of the current connection.
        var probe: RepeatedTask?
    }

    private enum LocalConnection {
        case connecting
        case ready(RedisConnection)
    }

    /// A link to `address` on `loop` (not connected until `start`). `onPush` receives every pushed
    /// message; `onUp` runs after each (re)connection, once the link reports up; `onTime` gets
    /// Redis's time from the liveness probe (every second: `TIME`, answered within 3 s or the
    /// connection is dropped and made again), when the answer arrives.
    public init(address: RedisAddress, loop: any EventLoop, logger: Logger,
                onPush: @escaping @Sendable (RedisLink, RedisPushMessage) -> Void, onUp: @escaping @Sendable (RedisLink) -> Void,
                onTime: @escaping @Sendable (_ redisNanoseconds: UInt64) -> Void = { _ in }) {
        self.address = address
        self.loop = loop
        self.logger = logger
        self.onPush = onPush
        self.onUp = onUp
        self.onTime = onTime
    }

    /// Whether both connections are open and ready.
    public var isUp: Bool { up.load(ordering: .acquiring) }

    /// The command connection of the caller's event loop (made on first use; the link's own until
    /// it is ready), or `unavailable` while Redis is away.
    public func connection() throws(PubNodeError) -> RedisConnection {
        let current = MultiThreadedEventLoopGroup.currentEventLoop
        let key = current.map(ObjectIdentifier.init)
        let (shared, local, start) = state.withLock { state -> (RedisConnection?, RedisConnection?, Bool) in
            guard let key, current !== loop, !state.stopped else { return (state.connection, nil, false) }
            switch state.local[key] {
            case .ready(let connection) where connection.isActive: return (state.connection, connection, false)
            case .connecting: return (state.connection, nil, false)
            default:
                guard state.connection != nil else { return (nil, nil, false) }
                state.local[key] = .connecting
                return (state.connection, nil, true)
            }
        }
        guard isUp, let shared, shared.isActive else { throw .unavailable("the cluster's Redis is unreachable") }
        if start, let current, let key { connectLocal(on: current, key: key, shared: shared) }
        return local ?? shared
    }

    private func connectLocal(on loop: any EventLoop, key: ObjectIdentifier, shared: RedisConnection) {
        let address = self.address
        loop.makeFutureWithTask { try await RedisConnection.connect(to: address, on: loop, timeout: .seconds(2)) }
            .whenComplete { result in
                let unused = self.state.withLock { state -> RedisConnection? in
                    // Kept only while the link is still on the connection it was made beside.
                    guard case .success(let connection) = result else {
                        state.local[key] = nil
                        return nil
                    }
                    guard state.connection === shared, !state.stopped else { return connection }
                    state.local[key] = .ready(connection)
                    return nil
                }
                if let unused { Task { await unused.close() } }
            }
    }

    /// The pub/sub connection, or `unavailable` while Redis is away.
    public func subscriber() throws(PubNodeError) -> RedisSubscriber {
        guard isUp, let subscriber = state.withLock({ $0.subscriber }), subscriber.isActive else {
            throw .unavailable("the cluster's Redis is unreachable")
        }
        return subscriber
    }

    /// Starts connecting (and keeps reconnecting until `stop`).
    public func start() {
        loop.execute { self.connectOnce() }
    }

    /// Closes the link's connections for good (and stops making any).
    public func stop() async {
        // The other loops' connections are left to the process's exit: those loops (the HTTP
        // front's) may already be shut down, and nothing can be scheduled on them any more.
        let (connection, subscriber) = state.withLock { state in
            state.stopped = true
            state.probe?.cancel()
            state.local = [:]
            return (state.connection, state.subscriber)
        }
        up.store(false, ordering: .releasing)
        await connection?.close()
        await subscriber?.close()
    }

    private func connectOnce() {
        let (address, loop, onPush) = (address, loop, onPush)
        let onMessage: @Sendable (RedisPushMessage) -> Void = { [weak self] push in
            if let self { onPush(self, push) }
        }
        let attempt = loop.makeFutureWithTask {
            let connection = try await RedisConnection.connect(to: address, on: loop, timeout: .seconds(2))
            do {
                let subscriber = try await RedisSubscriber.connect(to: address, on: loop, timeout: .seconds(2), onMessage: onMessage)
                return (connection, subscriber)
            } catch {
                await connection.close()
                throw error
            }
        }
        attempt.whenComplete { result in
            switch result {
            case .success(let (connection, subscriber)): self.connected(connection, subscriber)
            case .failure(let error): self.retry(after: error)
            }
        }
    }

    private func connected(_ connection: RedisConnection, _ subscriber: RedisSubscriber) {
        let stopped = state.withLock { state in
            state.connection = connection
            state.subscriber = subscriber
            state.attempt = 0
            return state.stopped
        }
        if stopped {
            Task { await connection.close(); await subscriber.close() }
            return
        }
        for closed in [connection.closeFuture, subscriber.closeFuture] {
            closed.whenComplete { _ in self.lost(connection, subscriber) }
        }
        up.store(true, ordering: .releasing)
        logger.info("redis connected", metadata: ["redis": "\(address)"])
        let probe = loop.scheduleRepeatedTask(initialDelay: .zero, delay: .seconds(1)) { _ in
            self.probe(connection, subscriber)
        }
        state.withLock { $0.probe = probe }
        onUp(self)
    }

    /// Asks Redis the time; no answer within 3 s means the connection is dead though open (a
    /// vanished host or a partition): both connections are closed and made again.
    private func probe(_ connection: RedisConnection, _ subscriber: RedisSubscriber) {
        let deadline = loop.scheduleTask(in: .seconds(3)) {
            self.logger.error("redis did not answer within 3 s; reconnecting", metadata: ["redis": "\(self.address)"])
            Task { await connection.close(); await subscriber.close() }
        }
        connection.sendCommand(["TIME"]).whenComplete { result in
            deadline.cancel()
            guard case .success(let reply) = result, let parts = reply.array, parts.count == 2,
                  let seconds = parts[0].string.flatMap(UInt64.init), let micros = parts[1].string.flatMap(UInt64.init) else { return }
            self.onTime(seconds * 1_000_000_000 + micros * 1_000)
        }
    }

    private func lost(_ connection: RedisConnection, _ subscriber: RedisSubscriber) {
        let (current, local) = state.withLock { state -> (Bool, [LocalConnection]) in
            guard state.connection === connection else { return (false, []) }
            state.connection = nil
            state.subscriber = nil
            state.probe?.cancel()
            state.probe = nil
            defer { state.local = [:] }
            return (!state.stopped, Array(state.local.values))
        }
        guard current else { return }
        up.store(false, ordering: .releasing)
        logger.error("redis connection lost; reconnecting", metadata: ["redis": "\(address)"])
        Task {
            await connection.close()
            await subscriber.close()
            for case .ready(let extra) in local { await extra.close() }
        }
        retry(after: RedisError.connectionClosed)
    }

    private func retry(after error: any Error) {
        let attempt = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            state.attempt += 1
            return state.attempt
        }
        guard let attempt else { return }
        if attempt == 1 || attempt % 20 == 0 {
            logger.warning("redis unreachable", metadata: ["redis": "\(address)", "error": "\(error)", "attempt": "\(attempt)"])
        }
        let delay = Backoff.delay(attempt: attempt, base: .milliseconds(100), maximum: .seconds(3), random: Double.random(in: 0..<1))
        let (seconds, attoseconds) = delay.components
        loop.scheduleTask(in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) { self.connectOnce() }
    }
}
