import NIOCore
import NIOPosix
import Synchronization

/// Event loops, connection bookkeeping and the reconnect loop shared by all scenarios.
final class ClientRuntime: Sendable {
    /// Client event loops; workers are spread over them round-robin.
    let group: MultiThreadedEventLoopGroup
    /// The loops of `group` that workers are spread over, in a fixed order.
    let loops: [any EventLoop]
    /// Loops of `group` outside that spread, for workers that must not wait behind the others'
    /// I/O (a publisher keeping a schedule while the subscribers' loops are saturated).
    let reservedLoops: [any EventLoop]
    /// Address to connect to.
    let host: String
    /// Port to connect to.
    let port: Int
    /// Every port workers are spread over (`port` first).
    let ports: [Int]
    /// `Host` header value.
    let hostHeader: String
    /// Limits concurrent connection attempts.
    let gate: ConnectGate
    /// Open channels, so `stop()` can close them.
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])
    /// Set by `stop()`; workers do not reconnect afterwards.
    private let stopping = Atomic<Bool>(false)
    /// Connections opened after a worker's first one (the server closed or a connect failed).
    private let reconnectCount = Atomic<Int>(0)
    /// Upper bound on connections per worker over a run (first connect included).
    let maxConnectsPerWorker: Int

    /// Creates the runtime for `options` with `threads` event loops, plus `reserved` loops of its own.
    init(options: CommonOptions, reserved: Int = 0, concurrentConnects: Int = 256, maxConnectsPerWorker: Int = 1000) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: options.threads + reserved)
        let all = Array(group.makeIterator())
        loops = Array(all.prefix(options.threads))
        reservedLoops = Array(all.dropFirst(options.threads))
        host = options.connectHost
        port = options.port
        ports = options.ports
        hostHeader = options.hostHeader
        gate = ConnectGate(permits: concurrentConnects)
        self.maxConnectsPerWorker = maxConnectsPerWorker
    }

    /// Event loop for the `index`-th worker.
    func loop(for index: Int) -> any EventLoop { loops[index % loops.count] }

    /// Server port for the `index`-th worker: the ports in turn.
    func port(for index: Int) -> Int { ports[index % ports.count] }

    /// True once `stop()` was called.
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Connects and reconnects the worker until its driver finishes or the runtime stops.
    func run<Driver: ExchangeDriver>(_ worker: Worker<Driver>) async {
        var connects = 0
        while !isStopping, connects < maxConnectsPerWorker {
            connects += 1
            if connects > 1 { reconnectCount.add(1, ordering: .relaxed) }
            await gate.acquire()
            let channel: any Channel
            do {
                channel = try await connect(worker)
                await gate.release()
            } catch {
                await gate.release()
                if isStopping { return }
                worker.connectFailed(error)
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let id = ObjectIdentifier(channel)
            open.withLock { $0[id] = channel }
            if isStopping { channel.close(promise: nil) }
            try? await channel.closeFuture.get()
            open.withLock { _ = $0.removeValue(forKey: id) }
            if await worker.isFinished() { return }
        }
    }

    /// Runs every worker at once (`run(_:)` each) and returns when all of them have stopped.
    func run<Driver: ExchangeDriver>(all workers: [Worker<Driver>]) async {
        await withTaskGroup(of: Void.self) { group in
            for worker in workers { group.addTask { await self.run(worker) } }
        }
    }

    /// Opens one HTTP/1.1 connection on the worker's loop with an `ExchangeHandler` for its driver.
    private func connect<Driver: ExchangeDriver>(_ worker: Worker<Driver>) async throws -> any Channel {
        let box = worker.box
        return try await ClientBootstrap(group: worker.loop)
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(ByteToMessageHandler(HTTPReplyDecoder()))
                    try sync.addHandler(ExchangeHandler(driver: box.value))
                }
            }
            .connect(host: host, port: worker.port ?? port)
            .get()
    }

    /// Connections opened after each worker's first one.
    var reconnects: Int { reconnectCount.load(ordering: .relaxed) }

    /// Number of currently open connections.
    var openConnections: Int { open.withLock { $0.count } }

    /// Stops reconnecting and closes every open connection.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        let channels = open.withLock { Array($0.values) }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Runs `body` for every worker's driver on its own loop (one hop per loop) and returns the results.
    func collect<Driver: ExchangeDriver, Result: Sendable>(
        _ workers: [Worker<Driver>],
        _ body: @escaping @Sendable (Driver) -> Result
    ) async -> [Result] {
        var byLoop: [ObjectIdentifier: (any EventLoop, [NIOLoopBoundBox<Driver>])] = [:]
        for worker in workers {
            byLoop[ObjectIdentifier(worker.loop), default: (worker.loop, [])].1.append(worker.box)
        }
        var results: [Result] = []
        results.reserveCapacity(workers.count)
        for (loop, boxes) in byLoop.values {
            if let part = try? await loop.submit({ boxes.map { body($0.value) } }).get() {
                results.append(contentsOf: part)
            }
        }
        return results
    }

    /// Shuts the event loops down.
    func shutdown() async {
        try? await group.shutdownGracefully()
    }
}
