import Foundation
import ArgumentParser
import Logging
import PubNodeCore
import PubNodeTestSupport
import XCTest
@testable import pubnode

/// A node started with `--history-url`: history goes to PostgreSQL, readiness follows the
/// database, a publish acknowledged while it is away is stored once it is back, and a malformed
/// URL is refused before anything starts.
final class PostgresRuntimeTests: XCTestCase {
    func testAMalformedHistoryURLIsRefusedWithItsReason() {
        var configuration = NodeConfiguration()
        XCTAssertThrowsError(try configuration.apply(flags: ["--history-url", "postgres://db.example/h"])) { error in
            XCTAssertEqual("\(error)", "historyUrl: no user")
        }
        XCTAssertThrowsError(try configuration.apply(environment: ["PUBNODE_HISTORY_URL": "http://u@h/d"])) { error in
            XCTAssertTrue("\(error)".contains("historyUrl: scheme http is not postgres"), "\(error)")
        }
        XCTAssertEqual(configuration.history.url, "", "nothing changes without it")
    }

    func testANodeWhoseDatabaseIsUnreachableRefusesToStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-runtime-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = NodeConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path
        // A port nothing listens on: bound, read and released.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        close(listener)
        try configuration.apply(flags: ["--history-url", "postgres://u@127.0.0.1:\(UInt16(bigEndian: address.sin_port))/d"])
        XCTAssertThrowsError(try NodeRuntime.make(configuration, logger: Logger(label: "test"))) { error in
            XCTAssertEqual((error as? ExitCode)?.rawValue, 3, "\(error)")
        }
    }

    func testHistoryLivesInPostgresAndReadinessFollowsTheDatabase() async throws {
        let server = try PostgresServerProcess.start()
        defer { server.destroy() }
        try server.sql("CREATE DATABASE runtime")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-runtime-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = NodeConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 1
        configuration.dataDirectory = directory.path
        try configuration.apply(flags: ["--history-url", server.url.replacingOccurrences(of: "/postgres?", with: "/runtime?")])
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let runtime = try NodeRuntime.make(configuration, logger: Logger(label: "test")) { listening.yield($0) }
        let group = runtime.services.group(signals: [], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let listened = await iterator.next()
        let base = "http://127.0.0.1:\(try XCTUnwrap(listened))"

        let published = try await HTTPGet.get("\(base)/publish/demo/demo/0/chat/0/%22kept%22?uuid=u")
        XCTAssertTrue(published.body.hasPrefix("[1,\"Sent\""), published.body)
        let fetched = try await HTTPGet.get("\(base)/v3/history/sub-key/demo/channel/chat")
        XCTAssertTrue(fetched.body.contains("kept"), fetched.body)
        let stored = try server.sql("SELECT convert_from(payload, 'UTF8') FROM pubnode_message", database: "runtime")
        XCTAssertEqual(stored.trimmingCharacters(in: .whitespacesAndNewlines), "\"kept\"")
        let ready = try await HTTPGet.get("\(base)/ready")
        XCTAssertEqual(ready.status, 200, ready.body)

        server.stop()
        let away = try await waitForReady(base, status: 503)
        XCTAssertTrue(away.contains("history database"), away)
        // Default mode: acknowledged while the database is away, stored once it is back.
        let buffered = try await HTTPGet.get("\(base)/publish/demo/demo/0/chat/0/%22buffered%22?uuid=u")
        XCTAssertTrue(buffered.body.hasPrefix("[1,\"Sent\""), buffered.body)
        try server.restart()
        _ = try await waitForReady(base, status: 200)
        await waitUntil(15, "the buffered message is stored") {
            ((try? server.sql("SELECT count(*) FROM pubnode_message", database: "runtime")) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "2"
        }
        let after = try await HTTPGet.get("\(base)/v3/history/sub-key/demo/channel/chat")
        XCTAssertTrue(after.body.contains("kept") && after.body.contains("buffered"), after.body)

        await group.triggerGracefulShutdown()
        try await running.value
    }

    /// Polls `/ready` (bounded) until it answers `status`; returns the body.
    private func waitForReady(_ base: String, status: Int) async throws -> String {
        var body = ""
        await waitUntil(15, "/ready answering \(status)") {
            guard let ready = try? await HTTPGet.get("\(base)/ready") else { return false }
            body = ready.body
            return ready.status == status
        }
        return body
    }
}
