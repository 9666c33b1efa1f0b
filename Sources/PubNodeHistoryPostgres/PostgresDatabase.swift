import Dispatch
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import PubNodeCore
import Synchronization

/// A pool of connections to one PostgreSQL database, used from synchronous code.
///
/// The history store protocol is synchronous; postgres-nio is async. The bridge, and its invariant:
/// - the client, its connections and every task this type starts run on `group`, a private event
///   loop group of one thread that nothing else uses (the tasks prefer a task executor on it);
/// - `run` blocks the calling thread on a semaphore until its task finishes or `timeout` passes.
///   So `run` must never be called on an event loop thread (that is checked: it throws instead);
///   the node calls the store only from its history dispatch queues (the writer's queue, the read
///   queue) and once at start-up, never from a NIO event loop.
///
/// The pool reconnects on its own with backoff. Every call has a deadline: a call that finds the
/// database away fails with `HistoryError.unavailable` within `timeout`, and `isReachable` turns
/// false until a call or the periodic probe succeeds again.
public final class PostgresDatabase: Sendable {
    /// Where the database is.
    public let location: PostgresLocation
    /// The longest one call waits for its answer.
    public let timeout: Duration
    private let group: MultiThreadedEventLoopGroup
    private let executor: PostgresLoopExecutor
    let client: PostgresClient
    let logger: Logger
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let reachable = Atomic<Bool>(true)
    private let closed = Atomic<Bool>(false)

    /// Connects a pool to `location` (lazily: the first call opens a connection) and starts a
    /// probe that checks the database every `probeInterval`.
    public init(_ location: PostgresLocation, timeout: Duration = .seconds(5), probeInterval: Duration = .seconds(2),
                logger: Logger = Logger(label: "pubnode.history.postgres")) {
        self.location = location
        self.timeout = timeout
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        executor = PostgresLoopExecutor(group.next())
        var configuration = location.clientConfiguration
        configuration.options.connectTimeout = min(timeout, .seconds(10))
        // The pool logs every failed connection attempt at info: only notices and worse go out.
        var background = logger
        background.logLevel = max(logger.logLevel, .notice)
        client = PostgresClient(configuration: configuration, eventLoopGroup: group, backgroundLogger: background)
        let client = self.client
        let runner = Task(executorPreference: executor) { await client.run() }
        let probe = Task(executorPreference: executor) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: probeInterval)
                guard let self, !Task.isCancelled else { return }
                await self.probe()
            }
        }
        tasks.withLock { $0 = [runner, probe] }
    }

    /// Whether the latest call or probe reached the database (for readiness; never blocks).
    public var isReachable: Bool { reachable.load(ordering: .relaxed) }

    /// Runs `body` with the client on the pool's own thread and waits for it, at most `timeout`.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) throws(HistoryError) -> T {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            throw .failed("PostgreSQL history called on an event loop thread")
        }
        guard !closed.load(ordering: .relaxed) else { throw .unavailable("PostgreSQL history is closed") }
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, HistoryError>?>(nil)
        let task = Task(executorPreference: executor) { [self] in
            let result: Result<T, HistoryError>
            do { result = .success(try await body(client)) } catch { result = .failure(PostgresFaults.classify(error)) }
            outcome.withLock { $0 = $0 ?? result }
            done.signal()
        }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        if done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
            task.cancel()
            outcome.withLock { $0 = $0 ?? .failure(.unavailable("no answer from PostgreSQL within \(timeout)")) }
        }
        let result = outcome.withLock { $0! }
        note(result)
        return try result.get()
    }

    /// Checks the database once (already on the pool's thread, so it awaits instead of blocking).
    private func probe() async {
        let client = self.client, logger = self.logger
        do {
            // A short deadline: while the database is away the pool holds requests instead of failing them.
            try await Self.withDeadline(min(timeout, .seconds(2))) {
                _ = try await client.query("SELECT 1", logger: logger).collect()
            }
            note(Result<Void, HistoryError>.success(()))
        } catch {
            note(Result<Void, HistoryError>.failure(PostgresFaults.classify(error)))
        }
    }

    /// Runs `body`, or throws `HistoryError.unavailable` (cancelling it) when `timeout` passes first.
    static func withDeadline(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await body(); return true }
            group.addTask { try await Task.sleep(for: timeout); return false }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw HistoryError.unavailable("no answer from PostgreSQL within \(timeout)")
            }
        }
    }

    /// Stops the pool and its thread; later calls fail with `HistoryError.unavailable`.
    public func shutdown() async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for task in tasks.withLock({ $0 }) { await task.value }
        try? await group.shutdownGracefully()
    }

    /// `shutdown()` for synchronous callers: blocks until the pool is stopped (never call it on
    /// an event loop).
    public func close() {
        let done = DispatchSemaphore(value: 0)
        Task { await shutdown(); done.signal() }
        done.wait()
    }

    private func note<T>(_ result: Result<T, HistoryError>) {
        switch result {
        case .success: reachable.store(true, ordering: .relaxed)
        case .failure(.unavailable): reachable.store(false, ordering: .relaxed)
        case .failure: break
        }
    }
}

/// Runs Swift tasks on the pool's event loop, so the bridge never needs the global concurrency pool.
final class PostgresLoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
