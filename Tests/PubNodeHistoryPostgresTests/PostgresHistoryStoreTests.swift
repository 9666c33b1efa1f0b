import Dispatch
import PubNodeCore
import PubNodeServer
import PubNodeHistoryPostgres
import PubNodeTestSupport
import Synchronization
import XCTest

/// What only PostgreSQL does: several nodes on one database (migrations, sweeps), the database
/// going away and coming back. The store's contract itself runs in the shared suites
/// (`HistoryStoreTests`, `MessageActionStoreTests`).
final class PostgresHistoryStoreTests: PostgresTestCase {
    private let now: UInt64 = 1_700_000_000_000_000_000

    private func message(_ timetoken: UInt64, channel: String = "ch", expires: UInt64? = nil) -> StoredMessage {
        StoredMessage(subscribeKey: "demo", channel: channel, timetoken: Timetoken(timetoken),
                      payload: Array("\(timetoken)".utf8), expiresAtNanoseconds: expires)
    }

    func testNodesStartingAtOnceApplyEachMigrationOnce() throws {
        let location = try location()
        let databases = (0..<4).map { _ in PostgresDatabase(location) }
        defer { databases.forEach { $0.close() } }
        let applied = Mutex<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: databases.count) { index in
            let names = (try? databases[index].migrate()) ?? ["failed"]
            applied.withLock { $0.append(names) }
        }
        let all = applied.withLock { $0 }
        XCTAssertFalse(all.flatMap { $0 }.contains("failed"), "\(all)")
        XCTAssertEqual(try databases[0].migrate(), [], "nothing left to apply")
        let recorded = try server.sql("SELECT name FROM \(location.schema!).pubnode_migrations ORDER BY name")
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.sorted()
        XCTAssertEqual(all.flatMap { $0 }.sorted(), recorded, "each applied exactly once: \(all)")
        XCTAssertEqual(Array(recorded.prefix(4)), ["v1: messages", "v2: message actions", "v3: app context", "v4: access"])
    }

    func testSweepsOnEveryNodeAtOnceDeleteEachExpiredRowOnce() throws {
        let location = try location()
        let first = PostgresHistoryStore(database: try database(location: location))
        let second = PostgresHistoryStore(database: try database(location: location))
        try first.append((1...3000).map { message(UInt64($0), channel: "c\($0 % 7)", expires: now) })
        try first.append((3001...3100).map { message(UInt64($0)) })
        let removed = Mutex<[Int]>([])
        let sweepTime = now + 1
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let store = index == 0 ? first : second
            while let count = try? store.expire(now: sweepTime, limit: 250), count > 0 {
                removed.withLock { $0.append(count) }
            }
        }
        XCTAssertEqual(removed.withLock { $0.reduce(0, +) }, 3000, "every expired row deleted once, none twice")
        XCTAssertEqual(try first.expire(now: now + 1, limit: 250), 0)
        XCTAssertEqual(try second.newestTimetoken(), Timetoken(3100), "batches over one statement raise it too")
        XCTAssertEqual(try second.count(subscribeKey: "demo", channel: "ch", after: .zero, limit: 1000, now: now + 1), 100)
    }

    func testAStoredMessageIsReadThroughAnotherNodesPool() throws {
        let location = try location()
        let writer = PostgresHistoryStore(database: try database(location: location))
        let reader = PostgresHistoryStore(database: try database(location: location))
        var stored = message(42)
        stored.meta = Array(#"{"k":1}"#.utf8)
        stored.publisher = "alice"
        try writer.append([stored])
        XCTAssertEqual(try reader.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: now), [stored])
        XCTAssertEqual(try reader.newestTimetoken(), Timetoken(42))
    }

    func testAnErrorOfTheQueryIsAFailureNotAnOutage() throws {
        let database = PostgresDatabase(try location())
        defer { database.close() }
        let store = PostgresHistoryStore(database: database)  // never migrated: no tables
        XCTAssertThrowsError(try store.count(subscribeKey: "demo", channel: "ch", after: .zero, limit: 1, now: now)) { error in
            guard case .failed(let why) = error as? HistoryError else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("42P01"), why)
        }
        XCTAssertTrue(database.isReachable, "the database answered: the node stays ready")
    }

    func testTheDatabaseAwayFailsCallsAsUnavailableThenTheyRecover() async throws {
        let server = try server
        let database = try database(timeout: .seconds(2))
        let store = PostgresHistoryStore(database: database)
        try store.append([message(1)])
        XCTAssertTrue(database.isReachable)
        server.stop()
        XCTAssertThrowsError(try store.append([message(2)])) { error in
            guard case .unavailable = error as? HistoryError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: now))
        XCTAssertFalse(database.isReachable, "not ready while the database is away")
        try server.restart()
        await waitUntil(10, "the pool reconnects") { database.isReachable }
        var recovered: [StoredMessage] = []
        await waitUntil(10, "reads succeed again") {
            recovered = (try? store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: now)) ?? []
            return !recovered.isEmpty
        }
        XCTAssertEqual(recovered.map(\.timetoken), [Timetoken(1)])
        try store.append([message(3)])
        XCTAssertEqual(try store.count(subscribeKey: "demo", channel: "ch", after: .zero, limit: 10, now: now), 2)
    }
}
