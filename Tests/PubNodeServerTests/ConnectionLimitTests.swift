import Logging
import NIOCore
import NIOPosix
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import Synchronization
import XCTest

/// The node-wide connection limit, the per-address parked-poll limit and the listener's pause
/// when descriptors run out.
final class ConnectionLimitTests: XCTestCase {
    func testConnectionsOverTheNodeLimitAreClosedAtOnce() throws {
        let embedded = EmbeddedNode(clientLimits: ClientLimits(maxNodeConnections: 2))
        let first = try embedded.connect()
        let second = try embedded.connect()
        let third = try embedded.connect()
        XCTAssertTrue(first.isOpen)
        XCTAssertTrue(second.isOpen)
        XCTAssertFalse(third.isOpen, "over the node's limit")
        XCTAssertEqual(embedded.router.operations.gauges.refusedConnections, 1)
        try first.channel.close().wait()
        let fourth = try embedded.connect()
        XCTAssertTrue(fourth.isOpen, "a closed connection gives its place back")
        try fourth.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try fourth.response()?.status, 200)
    }

    func testParkedPollsOverTheAddressLimitAre429() throws {
        let embedded = EmbeddedNode(clientLimits: ClientLimits(maxParkedPerAddress: 2))
        let cursor = try embedded.handshake("c")
        let poll = "GET /v2/subscribe/demo/c/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n"
        let parked = try (0..<2).map { _ in try embedded.connect() }
        for connection in parked {
            try connection.send(poll)
            XCTAssertNil(try connection.response())
        }
        let third = try embedded.connect()
        try third.send(poll)
        let refused = try XCTUnwrap(third.response())
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.headers["retry-after"], "1")
        XCTAssertEqual(refused.json["service"]?.stringValue, "Rate Limiter")
        XCTAssertEqual(embedded.router.clientLimits.snapshot().refusedPolls, 1)
        // A catch-up with messages ready is answered without parking, whatever the count.
        try embedded.publish("c", "1")
        for connection in parked { XCTAssertEqual(try connection.response()?.status, 200) }
        try third.send(poll)
        XCTAssertEqual(try third.response()?.json["m"]?.arrayValue.count, 1)
        // The woken polls gave their counts back: two can park again.
        let next = try embedded.handshake("c")
        for connection in parked {
            try connection.send("GET /v2/subscribe/demo/c/0?tt=\(next) HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertNil(try connection.response())
        }
    }

    func testPrivateAddressesCanBeLeftOutOfThePerClientLimits() throws {
        let exempt = EmbeddedNode(clientLimits: ClientLimits(maxConnections: 1, maxParkedPerAddress: 1,
                                                             exemptPrivateAddresses: true))
        let connections = try (0..<3).map { _ in try exempt.connect() }
        XCTAssertTrue(connections.allSatisfy(\.isOpen), "127.0.0.1 is where a reverse proxy connects from")
        for connection in connections {
            try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try connection.response()?.status, 200)
        }
        for (text, expected) in [("127.0.0.1", true), ("10.1.2.3", true), ("172.20.0.1", true), ("172.32.0.1", false),
                                 ("192.168.1.1", true), ("169.254.1.1", true), ("8.8.8.8", false), ("::1", true),
                                 ("fd00::1", true), ("fe80::1", true), ("2001:db8::1", false), ("::ffff:10.0.0.1", true),
                                 ("::ffff:1.1.1.1", false)] {
            XCTAssertEqual(ClientAddress.isPrivate(try SocketAddress(ipAddress: text, port: 1)), expected, text)
        }
    }

    func testAcceptFailuresPauseTheListenerAndAreLoggedSparingly() {
        let lines = LogLines()
        let gauges = ServerGauges()
        let backoff = AcceptBackoff(logger: Logger(label: "test") { _ in lines }, gauges: gauges)
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let exhausted = IOError(errnoCode: EMFILE, reason: "accept")
        for step in 0..<50 {
            let pause = backoff.failed(exhausted, now: start + .milliseconds(Int64(step) * 100))
            XCTAssertEqual(pause, AcceptBackoff.pause)
        }
        XCTAssertEqual(gauges.failedAccepts, 50)
        XCTAssertEqual(lines.messages.count, 1, "five seconds of failures: one line")
        _ = backoff.failed(exhausted, now: start + .seconds(11))
        XCTAssertEqual(lines.messages.count, 2)
        XCTAssertEqual(lines.metadataLast?["failures"], "50", "the second line counts the failures since the line before")
    }
}

/// A log handler that keeps what it is given.
private final class LogLines: LogHandler, @unchecked Sendable {
    // Invariant: the tests log from one thread; the lock only satisfies the compiler's checks.
    private let lock = Mutex<[(String, Logger.Metadata)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        lock.withLock { $0.append((message.description, metadata ?? [:])) }
    }

    var messages: [String] { lock.withLock { $0.map(\.0) } }
    var metadataLines: [Logger.Metadata] { lock.withLock { $0.map(\.1) } }
}

private extension LogLines {
    var metadataLast: [String: String]? { metadataLines.last?.mapValues { "\($0)" } }
}
