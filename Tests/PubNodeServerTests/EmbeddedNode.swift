import Dispatch
import NIOCore
import NIOEmbedded
import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import Synchronization
import XCTest

/// A node wired to in-memory connections: each `Connection` is an `EmbeddedChannel` carrying the
/// production pipeline, fed raw HTTP bytes. No sockets.
final class EmbeddedNode {
    let node: Node
    let router: Router

    convenience init(keysets: [Keyset] = [.demo], limits: Limits = Limits(), wall: any WallClock = SystemWallClock(),
                     hooks: HookEngine = .none(), adminToken: String? = nil, clientLimits: ClientLimits = ClientLimits(),
                     operations: Operations? = nil, metricsListener: Bool = false,
                     authorizer: any Authorizer = OpenAuthorizer()) {
        self.init(node: Node(keysets: keysets, limits: limits, clock: TimetokenClock(wall: wall), authorizer: authorizer,
                             adminToken: adminToken, hooks: hooks),
                  clientLimits: clientLimits, operations: operations, metricsListener: metricsListener)
    }

    /// `node` wired to in-memory connections (also a node assembled from seams of a test's own).
    init(node: Node, clientLimits: ClientLimits = ClientLimits(), operations: Operations? = nil,
         metricsListener: Bool = false) {
        self.node = node
        router = Router(node: node, clientLimits: clientLimits, operations: operations, metricsListener: metricsListener)
    }

    /// A node with short clocks for timing tests: long-polls of `longPollSeconds`, connections
    /// idle after `idleSeconds`.
    static func clocked(longPollSeconds: Int = 5, idleSeconds: Int = 8) -> EmbeddedNode {
        var limits = Limits()
        limits.longPollTimeoutSeconds = longPollSeconds
        limits.idleConnectionSeconds = idleSeconds
        return EmbeddedNode(limits: limits)
    }

    /// A new connection, on its own event loop or on `loop` (several connections can share one).
    func connect(on loop: EmbeddedEventLoop? = nil) throws -> Connection {
        let channel = loop.map { EmbeddedChannel(loop: $0) } ?? EmbeddedChannel()
        try PubNodeHTTPServer.configureConnection(channel.pipeline.syncOperations, router: router)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return Connection(channel: channel)
    }

    /// Sends one GET (with `headers`) on a fresh connection and returns its complete answer.
    func get(_ target: String, headers: [String: String] = [:], file: StaticString = #filePath,
             line: UInt = #line) throws -> Response {
        let connection = try connect()
        var head = "GET \(target) HTTP/1.1\r\nHost: x\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try connection.send(head + "\r\n")
        return try XCTUnwrap(connection.response(), "no response to \(target)", file: file, line: line)
    }

    /// Sends a POST with `body` on a fresh connection.
    func post(_ target: String, body: [UInt8], headers: [String: String] = [:]) throws -> Response? {
        let connection = try connect()
        var head = "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try connection.send(Array((head + "\r\n").utf8) + body)
        return try connection.response()
    }

    /// Runs a tenants API action to its end, blocking this thread (the embedded connections stay
    /// on it: they are not thread-safe).
    func administer(_ action: KeysetAdminRequest.Action) throws {
        let node = self.node
        _ = try waitedFor { try await node.administerKeysets(KeysetAdminRequest(action: action, credential: "admin")) }
    }

    /// A subscribe handshake's cursor for `channels`.
    func handshake(_ channels: String = "c", query: String = "") throws -> String {
        let response = try get("/v2/subscribe/demo/\(channels)/0?tt=0\(query)")
        return try XCTUnwrap(response.json["t"]?["t"]?.stringValue)
    }

    /// Publishes a JSON text on `channel` with GET and returns the timetoken.
    @discardableResult
    func publish(_ channel: String, _ json: String, query: String = "") throws -> String {
        let encoded = json.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let response = try get("/publish/demo/demo/0/\(channel)/0/\(encoded)?uuid=tester\(query)")
        XCTAssertEqual(response.status, 200, response.text)
        return try XCTUnwrap(response.json[2]?.stringValue)
    }
}

/// An authorizer whose answer can change between requests (a token revoked meanwhile).
final class SwitchableAuthorizer: Authorizer {
    let refusing = Atomic<Bool>(false)

    func authorize(_ request: AccessRequest) throws(PubNodeError) {
        if refusing.load(ordering: .relaxed) { throw .forbidden("revoked") }
    }
}

/// One in-memory client connection.
final class Connection {
    let channel: EmbeddedChannel
    private var pending: [UInt8] = []

    init(channel: EmbeddedChannel) { self.channel = channel }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
    }

    /// Runs queued event-loop work (wakes from publishes on other connections) and timers due now.
    func runLoop() {
        channel.embeddedEventLoop.run()
    }

    /// The next complete response written so far, if any.
    func response() throws -> Response? {
        runLoop()
        while let chunk = try channel.readOutbound(as: ByteBuffer.self) {
            pending += chunk.readableBytesView
        }
        guard let (response, used) = Response.parse(pending) else { return nil }
        pending.removeFirst(used)
        return response
    }

    var isOpen: Bool { channel.isActive }
}

extension Node {
    /// The in-memory hub of a subscribe key (for inspecting parked waiters).
    func hub(_ subscribeKey: String = "demo") -> ChannelHub? {
        (broker as? MemoryBroker)?.hub(subscribeKey)
    }

    /// Publishes a request that no before hook applies to, synchronously.
    func publishNow(_ request: PublishRequest) throws(PubNodeError) -> PublishResult {
        switch try begin(request) {
        case .done(let result): return result
        case .awaitingHooks, .accepting: preconditionFailure("publishNow is for channels without before hooks, on a single node")
        }
    }
}

/// The result of `body`, waited for on this thread: an embedded channel must be used from the
/// thread that made it, which an `await` in a test may leave.
func waitedFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}
