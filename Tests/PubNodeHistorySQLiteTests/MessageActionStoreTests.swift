import PubNodeCore
import PubNodeHistorySQLite
import PubNodeHistoryPostgres
import XCTest

/// The `MessageActionStore` contract, run against SQLite (memory and file), the memory store and
/// PostgreSQL (a throwaway server for the class, a schema per test).
final class MessageActionStoreTests: XCTestCase {
    override class func setUp() { PostgresSubject.start(for: self) }
    override class func tearDown() { PostgresSubject.stop(for: self) }

    private func stores() throws -> [(String, any MessageActionStore)] {
        let file = try HistoryFixture.directory(self) + "/history.sqlite"
        let postgres = try PostgresSubject.database(self).map {
            [("postgres", PostgresMessageActionStore(database: $0) as any MessageActionStore)]
        }
        return [
            ("sqlite-memory", SQLiteMessageActionStore(database: try HistoryDatabase.inMemory())),
            ("sqlite-file", SQLiteMessageActionStore(database: try HistoryDatabase.file(path: file))),
            ("memory", MemoryMessageActionStore()),
        ] + (postgres ?? [])
    }

    private func action(_ actionTT: UInt64, message: UInt64 = 100, uuid: String = "u", type: String = "reaction",
                        value: String = "smile", channel: String = "ch", key: String = "demo",
                        expires: UInt64? = nil) -> MessageAction {
        MessageAction(subscribeKey: key, channel: channel, messageTimetoken: Timetoken(message),
                      actionTimetoken: Timetoken(actionTT), type: type, value: value, uuid: uuid,
                      expiresAtNanoseconds: expires)
    }

    func testDuplicatesAreRefusedPerUUIDTypeAndValue() throws {
        for (name, store) in try stores() {
            XCTAssertEqual(try store.add(action(1), limit: 10, now: 0), .added, name)
            XCTAssertEqual(try store.add(action(2), limit: 10, now: 0), .duplicate, name)
            XCTAssertEqual(try store.add(action(3, uuid: "v"), limit: 10, now: 0), .added, name)
            XCTAssertEqual(try store.add(action(4, value: "frown"), limit: 10, now: 0), .added, name)
            XCTAssertEqual(try store.add(action(5, message: 101), limit: 10, now: 0), .added, name)
            XCTAssertEqual(try store.add(action(6, channel: "other"), limit: 10, now: 0), .added, name)
            XCTAssertEqual(try store.actions(subscribeKey: "demo", channel: "ch", range: .all, limit: 100, now: 0)
                .map(\.actionTimetoken.rawValue), [1, 3, 4, 5], name)
        }
    }

    func testAMessageHoldsAtMostTheLimit() throws {
        for (name, store) in try stores() {
            XCTAssertEqual(try store.add(action(1, value: "a"), limit: 2, now: 0), .added, name)
            XCTAssertEqual(try store.add(action(2, value: "b"), limit: 2, now: 0), .added, name)
            XCTAssertEqual(try store.add(action(3, value: "c"), limit: 2, now: 0), .full, name)
            XCTAssertEqual(try store.add(action(4, message: 200, value: "c"), limit: 2, now: 0), .added, name)
        }
    }

    func testRemoveOnlyByItsAuthor() throws {
        for (name, store) in try stores() {
            _ = try store.add(action(1), limit: 10, now: 0)
            XCTAssertEqual(try store.remove(subscribeKey: "demo", channel: "ch", messageTimetoken: Timetoken(100),
                                            actionTimetoken: Timetoken(1), uuid: "intruder", now: 0), .wrongUUID, name)
            XCTAssertEqual(try store.remove(subscribeKey: "demo", channel: "ch", messageTimetoken: Timetoken(999),
                                            actionTimetoken: Timetoken(1), uuid: "u", now: 0), .notFound, name)
            XCTAssertEqual(try store.remove(subscribeKey: "demo", channel: "ch", messageTimetoken: Timetoken(100),
                                            actionTimetoken: Timetoken(1), uuid: "u", now: 0), .removed(action(1)), name)
            XCTAssertEqual(try store.remove(subscribeKey: "demo", channel: "ch", messageTimetoken: Timetoken(100),
                                            actionTimetoken: Timetoken(1), uuid: "u", now: 0), .notFound, name)
            XCTAssertEqual(try store.add(action(2), limit: 10, now: 0), .added, "\(name): may be added again")
        }
    }

    func testPagingTakesTheNewestOldestFirst() throws {
        for (name, store) in try stores() {
            for tt in 1...10 { _ = try store.add(action(UInt64(tt), value: "v\(tt)"), limit: 100, now: 0) }
            let page = { (range: HistoryRange, limit: Int) in
                try store.actions(subscribeKey: "demo", channel: "ch", range: range, limit: limit, now: 0)
                    .map(\.actionTimetoken.rawValue)
            }
            XCTAssertEqual(try page(.all, 3), [8, 9, 10], name)
            XCTAssertEqual(try page(HistoryRange(start: Timetoken(8)), 3), [5, 6, 7], name)
            XCTAssertEqual(try page(HistoryRange(start: Timetoken(8), end: Timetoken(6)), 10), [6, 7], name)
            XCTAssertEqual(try page(HistoryRange(end: Timetoken(9)), 10), [9, 10], name)
            XCTAssertEqual(try store.actions(subscribeKey: "demo", channel: "ch", messages: [100], now: 0).count, 10, name)
            // Actions on a timetoken between two pages' messages (no message of its own) are not read.
            _ = try store.add(action(50, message: 150), limit: 10, now: 0)
            XCTAssertEqual(try store.actions(subscribeKey: "demo", channel: "ch", messages: [100, 200], now: 0)
                .map(\.messageTimetoken.rawValue), Array(repeating: 100, count: 10), name)
        }
    }

    func testDeletingHistoryDeletesTheActionsOfItsMessages() throws {
        for (name, store) in try stores() {
            _ = try store.add(action(1, message: 100), limit: 10, now: 0)
            _ = try store.add(action(2, message: 200), limit: 10, now: 0)
            _ = try store.add(action(3, message: 300), limit: 10, now: 0)
            // start exclusive, end inclusive: messages 200 ≤ t < 300.
            XCTAssertEqual(try store.delete(subscribeKey: "demo", channel: "ch",
                                            messages: HistoryRange(start: Timetoken(300), end: Timetoken(200))), 1, name)
            XCTAssertEqual(try store.actions(subscribeKey: "demo", channel: "ch", messages: [100, 200, 300, 400], now: 0)
                .map(\.messageTimetoken.rawValue), [100, 300], name)
        }
    }

    func testKeysetsAreIsolatedAndPurgedAlone() throws {
        for (name, store) in try stores() {
            _ = try store.add(action(1, key: "a"), limit: 10, now: 0)
            XCTAssertEqual(try store.add(action(2, key: "b"), limit: 10, now: 0), .added, "\(name): not a duplicate")
            XCTAssertEqual(try store.remove(subscribeKey: "b", channel: "ch", messageTimetoken: Timetoken(100),
                                            actionTimetoken: Timetoken(1), uuid: "u", now: 0), .notFound, name)
            XCTAssertEqual(try store.deleteAll(subscribeKey: "a"), 1, name)
            XCTAssertEqual(try store.actions(subscribeKey: "a", channel: "ch", range: .all, limit: 10, now: 0), [], name)
            XCTAssertEqual(try store.actions(subscribeKey: "b", channel: "ch", range: .all, limit: 10, now: 0).count, 1, name)
        }
    }

    func testExpiredActionsVanishAndAreSwept() throws {
        for (name, store) in try stores() {
            _ = try store.add(action(1, expires: 50), limit: 10, now: 0)
            _ = try store.add(action(2, value: "kept"), limit: 10, now: 0)
            XCTAssertEqual(try store.actions(subscribeKey: "demo", channel: "ch", range: .all, limit: 10, now: 60).count, 1, name)
            XCTAssertEqual(try store.add(action(3, expires: 500), limit: 10, now: 60), .added, "\(name): the expired one is gone")
            XCTAssertEqual(try store.expire(now: 600, limit: 10), 1, name)
            XCTAssertEqual(try store.actions(subscribeKey: "demo", channel: "ch", range: .all, limit: 10, now: 0)
                .map(\.value), ["kept"], name)
        }
    }
}

/// The memory store's bound on everything it holds.
final class MemoryMessageActionStoreTests: XCTestCase {
    func testTheStoreHoldsAtMostItsCapacity() throws {
        let store = MemoryMessageActionStore(capacity: 2)
        func action(_ tt: UInt64, _ value: String) -> MessageAction {
            MessageAction(subscribeKey: "demo", channel: "c\(tt)", messageTimetoken: Timetoken(1), actionTimetoken: Timetoken(tt),
                          type: "t", value: value, uuid: "u")
        }
        XCTAssertEqual(try store.add(action(1, "a"), limit: 10, now: 0), .added)
        XCTAssertEqual(try store.add(action(2, "b"), limit: 10, now: 0), .added)
        XCTAssertEqual(try store.add(action(3, "c"), limit: 10, now: 0), .storeFull)
        _ = try store.remove(subscribeKey: "demo", channel: "c1", messageTimetoken: Timetoken(1), actionTimetoken: Timetoken(1),
                             uuid: "u", now: 0)
        XCTAssertEqual(try store.add(action(3, "c"), limit: 10, now: 0), .added, "room again after a removal")
        XCTAssertEqual(try store.deleteAll(subscribeKey: "demo"), 2)
        XCTAssertEqual(try store.add(action(4, "d"), limit: 10, now: 0), .added)
    }

    func testOneKeysetCannotUseUpTheRoomOfAnother() throws {
        let store = MemoryMessageActionStore(capacity: 10, keysetCapacity: 2)
        func action(_ key: String, _ tt: UInt64, expires: UInt64? = nil) -> MessageAction {
            MessageAction(subscribeKey: key, channel: "c", messageTimetoken: Timetoken(1), actionTimetoken: Timetoken(tt),
                          type: "t", value: "v\(tt)", uuid: "u", expiresAtNanoseconds: expires)
        }
        XCTAssertEqual(try store.add(action("noisy", 1, expires: 5), limit: 100, now: 0), .added)
        XCTAssertEqual(try store.add(action("noisy", 2), limit: 100, now: 0), .added)
        XCTAssertEqual(try store.add(action("noisy", 3), limit: 100, now: 0), .storeFull, "the keyset's share is used up")
        XCTAssertEqual(try store.add(action("quiet", 4), limit: 100, now: 0), .added, "another keyset still has room")
        XCTAssertEqual(try store.expire(now: 10, limit: 100), 1)
        XCTAssertEqual(try store.add(action("noisy", 3), limit: 100, now: 10), .added, "an expiry gives the share back")
    }
}
