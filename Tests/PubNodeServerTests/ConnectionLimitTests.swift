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
