import Foundation
import PubNodeClient
import PubNodeCore
import PubNodeServer

/// An in-process PubNode on a real loopback socket (demo/demo keyset, in-memory history), for
/// clients in-process and a spawned `pubnode-cli` alike.
public final class TestNode: Sendable {
    /// The running server.
    public let server: PubNodeHTTPServer
    /// The port it listens on.
    public let port: Int

    private init(server: PubNodeHTTPServer, port: Int) {
        self.server = server
        self.port = port
    }

    /// The node behind the server.
    public var node: Node { server.node }

    /// `127.0.0.1:<port>`.
    public var origin: String { "127.0.0.1:\(port)" }

    /// Starts a node on `port` (0: any free port) whose timetokens and presence timeouts read
    /// `wall` (a manual clock lets the test move them).
    /// `keysets` (demo by default) and `adminToken` configure the node as the flags would.
    public static func start(port: Int = 0, wall: any WallClock = SystemWallClock(), keysets: [PubNodeCore.Keyset] = [.demo],
                             adminToken: String? = nil) async throws -> TestNode {
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.eventLoopThreads = 2
        let clock = TimetokenClock(wall: wall)
        let history = MessageHistory(store: MemoryHistoryStore(), policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 1)
        let node = Node(keysets: keysets, clock: clock, adminToken: adminToken, history: history)
        let server = PubNodeHTTPServer(configuration: configuration, node: node)
        let bound = try await server.start()
        return TestNode(server: server, port: bound)
    }

    /// Stops the server.
    public func shutdown() async throws { try await server.shutdown() }

    /// A client of this node; `transport` defaults to `URLSessionTransport`, `sleeper` to real time.
    public func client(userId: String = "tester",
                       retryPolicy: RetryPolicy = RetryPolicy(initialDelay: 0.05, maximumDelay: 0.5),
                       presenceTimeout: Int = 0, heartbeatInterval: Int = 0,
                       transport: any PubNodeTransport = URLSessionTransport(),
                       sleeper: any PubNodeSleeper = TaskSleeper()) -> PubNodeClient {
        PubNodeClient(configuration: PubNodeConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: userId, origin: origin,
            presenceTimeout: presenceTimeout, heartbeatInterval: heartbeatInterval, requestTimeout: 5,
            retryPolicy: retryPolicy), transport: transport, sleeper: sleeper)
    }
}
