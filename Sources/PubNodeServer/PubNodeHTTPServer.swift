import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import PubNodeCore
import Synchronization

/// Where and how the HTTP front listens.
public struct ServerConfiguration: Sendable {
    /// Address to bind.
    public var host: String = "127.0.0.1"
    /// Port to bind (0 picks a free one).
    public var port: Int = 8090
    /// Event-loop threads (defaults to the number of cores).
    public var eventLoopThreads: Int = System.coreCount
    /// Region number reported in timetoken objects.
    public var region: Int = 1
    /// Seconds between sweeps that expire buffered messages and reclaim idle channels.
    public var sweepIntervalSeconds: Int = 10

    /// The defaults: 127.0.0.1:8090.
    public init() {}
}

/// The HTTP/1.1 server: SwiftNIO channel handlers on event loops, one `PubNodeHTTPHandler` per connection.
public final class PubNodeHTTPServer: Sendable {
    /// The configuration it was started with.
    public let configuration: ServerConfiguration
    /// The domain node it serves.
    public let node: Node
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    /// Dropped after draining and before the loops stop: its deinit completes a promise on a loop.
    private let quiesce: QuiescingSlot
    private let listener = Mutex<(any Channel)?>(nil)
    private let sweeper = Mutex<(task: RepeatedTask, loop: any EventLoop, presence: PresenceSweep)?>(nil)

    /// Creates a server; nothing listens until `start()`.
    public init(configuration: ServerConfiguration, node: Node, logger: Logger = Logger(label: "pubnode")) {
        self.configuration = configuration
        self.node = node
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        self.quiesce = QuiescingSlot(ServerQuiescingHelper(group: group))
    }

    /// Binds and starts serving; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        let router = Router(node: node, region: configuration.region)
        let maxBody = node.limits.maxBodyBytes
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { [quiesce] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let helper = quiesce.helper.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(helper.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configureConnection(channel.pipeline.syncOperations, router: router, maxBody: maxBody)
                }
            }
        let channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        listener.withLock { $0 = channel }
        // One tick a second: presence timeouts and interval events every tick (off the event
        // loops), buffers and idle channels every `sweepIntervalSeconds` ticks.
        let interval = TimeAmount.seconds(1)
        let channelSweepTicks = max(1, configuration.sweepIntervalSeconds)
        let node = self.node
        let logger = self.logger
        let sweepLoop = group.next()
        let ticks = NIOLoopBoundBox.makeBoxSendingValue(0, eventLoop: sweepLoop)
        let presenceSweep = PresenceSweep(node: node, logger: logger)
        let task = sweepLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            ticks.value += 1
            presenceSweep.tick()
            guard ticks.value % channelSweepTicks == 0 else { return }
            let report = node.sweepChannels()
            if report.reclaimedChannels > 0 || report.expiredMessages > 0 {
                logger.debug("sweep", metadata: ["reclaimed": "\(report.reclaimedChannels)",
                                                 "expired": "\(report.expiredMessages)"])
            }
        }
        sweeper.withLock { $0 = (task, sweepLoop, presenceSweep) }
        let port = channel.localAddress?.port ?? configuration.port
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
        return port
    }

    /// Builds one connection's pipeline: NIO's HTTP/1.1 request decoder (llhttp, bounded header
    /// sizes), gzip request decompression, then the PubNode handler, which writes whole responses.
    static func configureConnection(_ pipeline: ChannelPipeline.SynchronousOperations, router: Router, maxBody: Int) throws {
        // A connection that sends nothing for longer than a long-poll lasts (plus grace) is closed.
        let idle = TimeAmount.seconds(Int64(router.node.limits.idleConnectionSeconds))
        try pipeline.addHandler(IdleStateHandler(readTimeout: idle))
        try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
        try pipeline.addHandler(NIOHTTPRequestDecompressor(limit: .size(maxBody)))
        try pipeline.addHandler(PubNodeHTTPHandler(router: router))
    }

    /// The bound port, once started.
    public var port: Int? { listener.withLock { $0?.localAddress?.port } }

    /// Drains gracefully: stops accepting, answers every parked long-poll with its cursor, waits
    /// for connections to close, then stops the event loops.
    public func shutdown() async throws {
        if let sweep = sweeper.withLock({ $0 }) {
            let cancelled = sweep.loop.makePromise(of: Void.self)
            sweep.task.cancel(promise: cancelled)
            try await cancelled.futureResult.get()
            sweep.presence.finish()
        }
        let promise = group.next().makePromise(of: Void.self)
        if let helper = quiesce.helper.withLock({ $0 }) {
            helper.initiateShutdown(promise: promise)
            try await promise.futureResult.get()
        }
        quiesce.helper.withLock { $0 = nil }
        try await group.shutdownGracefully()
        logger.info("stopped")
    }
}

/// Holds the server's quiescing helper until the drain is over.
private final class QuiescingSlot: Sendable {
    let helper: Mutex<ServerQuiescingHelper?>

    init(_ helper: ServerQuiescingHelper) {
        self.helper = Mutex(helper)
    }
}
