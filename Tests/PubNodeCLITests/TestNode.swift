import Foundation
import PubNodeClient
import PubNodeCore
import PubNodeServer
import XCTest

/// An in-process PubNode on a real loopback socket (demo/demo keyset, in-memory history) that a
/// spawned `pubnode-cli` can reach.
final class TestNode: Sendable {
    let server: PubNodeHTTPServer
    let port: Int

    private init(server: PubNodeHTTPServer, port: Int) {
        self.server = server
        self.port = port
    }

    /// Starts a node on any free port.
    static func start() async throws -> TestNode {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 2
        let clock = TimetokenClock()
        let history = MessageHistory(store: MemoryHistoryStore(), policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 1)
        let server = PubNodeHTTPServer(configuration: configuration, node: Node(clock: clock, history: history))
        let bound = try await server.start()
        return TestNode(server: server, port: bound)
    }

    func shutdown() async throws { try await server.shutdown() }

    /// `127.0.0.1:<port>`.
    var origin: String { "127.0.0.1:\(port)" }

    /// A client of this node, to check what the CLI did.
    func client(userId: String = "checker") -> PubNodeClient {
        PubNodeClient(configuration: PubNodeConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: userId, origin: origin, requestTimeout: 5,
            retryPolicy: RetryPolicy(initialDelay: 0.05, maximumDelay: 0.5)))
    }
}

/// Polls `condition` until it holds or `seconds` pass; fails the test on timeout.
@discardableResult
func waitUntil(_ seconds: Double = 10, _ what: String = "condition", file: StaticString = #filePath, line: UInt = #line,
               _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    XCTFail("timed out waiting for \(what)", file: file, line: line)
    return false
}
