import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
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
    /// How the kernel schedules the event-loop threads (`LoopScheduling`; Linux only).
    public var loopScheduling: LoopScheduling = .automatic
    /// Region number reported in timetoken objects.
    public var region: Int = 1
    /// Most open connections per client IP address (0 = unlimited); a connection over it has its
    /// request answered 429 and is closed.
    public var maxConnectionsPerClient: Int = 0
    /// Requests per second per client IP address (0 = unlimited; burst: one second's worth);
    /// requests over it are answered 429. `/time/0` and `OPTIONS` are never limited.
    public var clientRequestsPerSecond: Double = 0
    /// Most open connections to the node from all addresses (0 = unlimited); a connection over it
    /// is closed as soon as it is accepted.
    public var maxConnections: Int = 0
    /// Most parked long-polls per client IP address (0 = unlimited); a subscribe over it is
    /// answered 429.
    public var maxParkedPerClient: Int = 0
    /// Leaves loopback and private client addresses out of the per-client limits (a reverse
    /// proxy's clients all arrive from its address).
    public var exemptPrivateClients = false
    /// A second port serving only `/metrics` (without the admin token), `/health` and `/ready`, on
    /// `metricsHost`; nil for none (then `/metrics` is on the main port, behind the admin token).
    public var metricsPort: Int?
    /// Address the metrics port binds.
    public var metricsHost: String = "127.0.0.1"

    /// The defaults: 127.0.0.1:8090.
    public init() {}
}

/// The HTTP/1.1 server: SwiftNIO channel handlers on event loops, one `PubNodeHTTPHandler` per connection.
///
/// It only serves requests; periodic work (presence timeouts, idle channels, expired history)
/// runs beside it through `NodeSweeps`.
public final class PubNodeHTTPServer: Sendable {
    /// The configuration it was started with.
    public let configuration: ServerConfiguration
    /// The domain node it serves.
    public let node: Node
    private let logger: Logger
    /// The event loops serving connections (read by tests for their threads' scheduling).
    let group: MultiThreadedEventLoopGroup
    /// Dropped after draining and before the loops stop: its deinit completes a promise on a loop.
    private let quiesce: QuiescingSlot
    private let listener = Mutex<(any Channel)?>(nil)
    /// The per-client limits of `configuration` and their counters.
    public let clientLimits: ClientLimits
    /// Readiness, metrics and the console.
    public let operations: Operations
    private let metricsListener = Mutex<(any Channel)?>(nil)
    /// Pauses accepting when the process is out of descriptors, instead of spinning.
    let acceptBackoff: AcceptBackoff

    /// Creates a server; nothing listens until `start()`. `clock` times the per-client request rate.
    /// `operations` default to metrics on and the installed console.
    public init(configuration: ServerConfiguration, node: Node, logger: Logger = Logger(label: "pubnode"),
                clock: any WallClock = SystemWallClock(), operations: Operations? = nil) {
        self.configuration = configuration
        self.node = node
        let operations = operations
            ?? Operations(startedAtMilliseconds: Int64(node.clock.nowNanoseconds() / 1_000_000))
        self.operations = operations
        self.acceptBackoff = AcceptBackoff(logger: logger, gauges: operations.gauges)
        self.clientLimits = ClientLimits(configuration, clock: clock)
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        self.quiesce = QuiescingSlot(ServerQuiescingHelper(group: group))
        // Each loop sets its thread's policy as its first task, before it serves a connection.
        configuration.loopScheduling.apply(to: group).whenFailure { error in
            logger.warning("some event loops keep their scheduling policy", metadata: ["reason": "\(error)"])
        }
    }

    /// Binds and starts serving; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        let router = Router(node: node, region: configuration.region, clientLimits: clientLimits, operations: operations)
        let channel = try await bind(router, host: configuration.host, port: configuration.port)
        listener.withLock { $0 = channel }
        let port = channel.localAddress?.port ?? configuration.port
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
        if let metricsPort = configuration.metricsPort {
            let metricsRouter = Router(node: node, region: configuration.region, clientLimits: clientLimits,
                                       operations: operations, metricsListener: true)
            let metricsChannel = try await bind(metricsRouter, host: configuration.metricsHost, port: metricsPort)
            metricsListener.withLock { $0 = metricsChannel }
            logger.info("metrics listening", metadata: ["host": "\(configuration.metricsHost)",
                                                        "port": "\(metricsChannel.localAddress?.port ?? metricsPort)"])
        }
        return port
    }

    /// Binds a listener whose connections are served by `router`; it closes with the server's drain.
    private func bind(_ router: Router, host: String, port: Int) async throws -> any Channel {
        let bootstrap = Self.listenerBootstrap(group: group)
            .serverChannelInitializer { [quiesce, acceptBackoff] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let helper = quiesce.helper.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(helper.makeServerChannelHandler(channel: channel))
                    try channel.pipeline.syncOperations.addHandler(acceptBackoff.handler())
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configureOptions(channel)
                    try Self.configureConnection(channel.pipeline.syncOperations, router: router)
                }
            }
        return try await bootstrap.bind(host: host, port: port).get()
    }

    /// A bootstrap with the listener's options: a deep backlog and address reuse. Each accepted
    /// connection's own are set by `configureOptions`.
    static func listenerBootstrap(group: any EventLoopGroup) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    }

    /// Sets an accepted connection's options directly, on its loop: `TCP_NODELAY` (an answer
    /// leaves without waiting for the client's ACK of the last; an accepted socket does not
    /// inherit it from the listener) and up to 16 reads a loop turn. A bootstrap's child options
    /// would be applied through a chain of futures, one per option, which cost as much as the rest
    /// of accepting the connection.
    static func configureOptions(_ channel: any Channel) throws {
        guard let options = channel.syncOptions else { return }
        try options.setOption(.socketOption(.tcp_nodelay), value: 1)
        try options.setOption(.maxMessagesPerRead, value: 16)
    }

    /// Builds one connection's pipeline: a single handler, which parses requests from the received
    /// bytes (`HTTPRequestParser`), inflates compressed bodies, keeps the idle and request-arrival
    /// clocks, and writes whole responses.
    static func configureConnection(_ pipeline: ChannelPipeline.SynchronousOperations, router: Router) throws {
        try pipeline.addHandler(PubNodeHTTPHandler(router: router))
    }

    /// The bound port, once started.
    public var port: Int? { listener.withLock { $0?.localAddress?.port } }

    /// The metrics port, once started with one.
    public var metricsPort: Int? { metricsListener.withLock { $0?.localAddress?.port } }

    /// Drains gracefully: stops accepting, answers every parked long-poll with its cursor, waits
    /// for connections to close, then stops the event loops.
    ///
    /// The node's sweeps are not part of the server: whoever runs them (`NodeSweeps`) stops them
    /// before calling this, so no sweep wakes a subscriber on an event loop that has shut down.
    public func shutdown() async throws {
        operations.readiness.markDraining()
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
