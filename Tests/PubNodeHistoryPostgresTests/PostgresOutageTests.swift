import PubNodeCore
import PubNodeServer
import PubNodeHistoryPostgres
import PubNodeTestSupport
import XCTest

/// The outage policy against a real PostgreSQL stopped and restarted under the production router:
/// strict publishes answer 503 and are never stored; default mode acknowledges and buffers within
/// the bound, answers 503 past it, and stores every acknowledged message once the database is back.
/// Meanwhile the node is not ready (both readiness checks: the writer and the database probe).
final class PostgresOutageTests: PostgresTestCase {
    private func node(_ database: PostgresDatabase, strict: Bool,
                      maxPendingBytes: Int = HistoryWriter.defaultMaxPendingBytes) -> (MessageHistory, Router) {
        let history = MessageHistory(store: PostgresHistoryStore(database: database), policies: ["demo": HistoryPolicy()],
                                     clock: TimetokenClock(), flushMilliseconds: 1, strict: strict,
                                     bufferWhileUnavailable: true, maxPendingBytes: maxPendingBytes)
        addTeardownBlock { history.close() }
        return (history, Router(node: Node(keysets: [.demo], clock: history.clock, history: history)))
    }

    private func payloads(_ history: MessageHistory) throws -> [String] {
        try history.fetch(subscribeKey: "demo", channel: "ch", query: HistoryQuery(limit: 100))
            .map { String(decoding: $0.payload, as: UTF8.self) }
    }

    func testStrictPublishesAnswer503WhileTheDatabaseIsAway() async throws {
        let server = try server
        let database = try database(timeout: .seconds(2))
        let (history, router) = node(database, strict: true)
        XCTAssertEqual(router.status("/publish/demo/demo/0/ch/0/%22kept%22?uuid=u"), 200)
        server.stop()
        XCTAssertEqual(router.status("/publish/demo/demo/0/ch/0/%22lost%22?uuid=u"), 503, "never acknowledged")
        XCTAssertTrue(history.writer.isFailing(), "readiness's history check fails")
        XCTAssertFalse(database.isReachable, "readiness's database check fails")
        try server.restart()
        await waitUntil(10, "the pool reconnects") { database.isReachable }
        await waitUntil(10, "strict publishes succeed again") { router.status("/publish/demo/demo/0/ch/0/%22back%22?uuid=u") == 200 }
        let stored = try payloads(history)
        XCTAssertEqual(stored.first, "\"kept\"")
        XCTAssertFalse(stored.contains("\"lost\""))
    }

    func testDefaultModeBuffersWhileTheDatabaseIsAwayAndStoresEveryAcknowledgedMessageOnceBack() async throws {
        let server = try server
        let database = try database(timeout: .seconds(2))
        let (history, router) = node(database, strict: false, maxPendingBytes: 200)
        XCTAssertEqual(router.status("/publish/demo/demo/0/ch/0/%22m0%22?uuid=u"), 200)
        history.writer.flush()
        server.stop()
        var acknowledged = ["\"m0\""]
        for index in 1...5 {
            XCTAssertEqual(router.status("/publish/demo/demo/0/ch/0/%22m\(index)%22?uuid=u"), 200)
            acknowledged.append("\"m\(index)\"")
        }
        await waitUntil(10, "the writer keeps the batch for a retry") { history.writer.isRetrying }
        XCTAssertTrue(history.writer.isFailing(), "not ready")
        XCTAssertFalse(database.isReachable, "not ready")
        XCTAssertEqual(history.writer.statistics.lostMessages, 0)
        var refused = 0
        for index in 6..<100 {
            let status = router.status("/publish/demo/demo/0/ch/0/%22m\(index)%22?uuid=u")
            if status == 200 { acknowledged.append("\"m\(index)\"") } else { XCTAssertEqual(status, 503); refused += 1 }
        }
        XCTAssertGreaterThan(refused, 0, "past the bound, stored publishes answer 503")
        XCTAssertLessThan(acknowledged.count, 100)

        try server.restart()
        await waitUntil(15, "the buffered messages are committed") { !history.writer.isRetrying && history.writer.pendingCount == 0 }
        XCTAssertEqual(try payloads(history).sorted(), acknowledged.sorted(), "every acknowledged message, none refused")
        XCTAssertFalse(history.writer.isFailing(), "ready again")
        XCTAssertEqual(router.status("/publish/demo/demo/0/ch/0/%22after%22?uuid=u"), 200)
    }
}
