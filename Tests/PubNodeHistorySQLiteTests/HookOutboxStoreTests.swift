import Foundation
import PubNodeCore
import PubNodeHistorySQLite
import XCTest

final class HookOutboxStoreTests: XCTestCase {
    private func record(_ id: UInt64, hook: String = "audit", spilled: Bool) -> OutboxRecord {
        OutboxRecord(id: id, hook: hook, body: Array("{\"n\":\(id)}".utf8), createdAtMilliseconds: 1, spilled: spilled)
    }

    func testSpilledEventsWaitInTheStoreUntilTakenBackOldestFirst() async throws {
        let path = try HistoryFixture.directory(self) + "/history.sqlite"
        let store = SQLiteHookOutboxStore(database: try HistoryDatabase.file(path: path))
        try await store.save([record(1, spilled: false), record(5, spilled: true), record(3, spilled: true),
                              record(4, spilled: true), record(2, hook: "other", spilled: true)])
        XCTAssertEqual(try store.load().map(\.id), [1], "a restart loads only what was held in memory")
        XCTAssertEqual(try store.spilled(), ["audit": SpilledEvents(count: 3, newestID: 5),
                                             "other": SpilledEvents(count: 1, newestID: 2)])

        let taken = try await store.unspill(hook: "audit", limit: 2)
        XCTAssertEqual(taken.map(\.id), [3, 4], "oldest first")
        XCTAssertEqual(taken.map(\.body), [record(3, spilled: true).body, record(4, spilled: true).body])
        XCTAssertEqual(try store.load().map(\.id), [1, 3, 4], "taken back: no longer spilled")
        XCTAssertEqual(try store.spilled()["audit"]?.count, 1)

        // The flag survives the file being opened again.
        let reopened = SQLiteHookOutboxStore(database: try HistoryDatabase.file(path: path))
        XCTAssertEqual(try reopened.spilled()["audit"], SpilledEvents(count: 1, newestID: 5))
        let rest = try await reopened.unspill(hook: "audit", limit: 10)
        XCTAssertEqual(rest.map(\.id), [5])
        XCTAssertFalse(rest[0].spilled)
    }
}
