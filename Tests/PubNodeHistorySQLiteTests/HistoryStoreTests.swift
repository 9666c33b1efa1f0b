import PubNodeCore
import PubNodeHistorySQLite
import XCTest

/// One contract, run against SQLite in memory, SQLite in a temporary file, the memory store and
/// PostgreSQL (a throwaway server for the class, a schema per test).
final class HistoryStoreTests: XCTestCase {
    override class func setUp() { PostgresSubject.start(for: self) }
    override class func tearDown() { PostgresSubject.stop(for: self) }

    private let now = TestClock.start

    private func seeded(_ store: any HistoryStore) throws {
        try store.append((1...10).map { HistoryFixture.message(UInt64($0) * 10) })
        try store.append([HistoryFixture.message(15, channel: "other"), HistoryFixture.message(15, key: "key2")])
    }

    func testPagesComeOldestFirstFromTheNewestOrOldestEnd() throws {
        for (name, store) in try HistoryFixture.stores(self) {
            try seeded(store)
            let newest = try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(limit: 3), now: now)
            XCTAssertEqual(HistoryFixture.timetokens(newest), [80, 90, 100], name)
            let oldest = try store.messages(subscribeKey: "demo", channel: "ch",
                                            query: HistoryQuery(limit: 3, fromOldest: true), now: now)
            XCTAssertEqual(HistoryFixture.timetokens(oldest), [10, 20, 30], name)
            let all = try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(limit: 100), now: now)
            XCTAssertEqual(all.count, 10, name)
            XCTAssertEqual(try store.messages(subscribeKey: "demo", channel: "nope", query: HistoryQuery(), now: now), [], name)
        }
    }

    func testStartIsExclusiveAndEndInclusiveInEitherOrder() throws {
        let cases: [(UInt64?, UInt64?, [UInt64])] = [
            (50, nil, [10, 20, 30, 40]),          // start alone: older than start
            (nil, 80, [80, 90, 100]),             // end alone: end and newer
            (80, 30, [30, 40, 50, 60, 70]),       // start > end: end ≤ t < start
            (30, 80, [40, 50, 60, 70, 80]),       // start < end: start < t ≤ end
            (50, 50, []), (0, nil, []), (nil, 0, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]),
            (101, nil, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]), (nil, 101, []),
        ]
        for (name, store) in try HistoryFixture.stores(self) {
            try seeded(store)
            for (start, end, expected) in cases {
                let range = HistoryRange(start: start.map { Timetoken($0) }, end: end.map { Timetoken($0) })
                let found = try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(range: range), now: now)
                let label = "\(name) start=\(start.map(String.init) ?? "-") end=\(end.map(String.init) ?? "-")"
                XCTAssertEqual(HistoryFixture.timetokens(found), expected, label)
            }
            let limited = try store.messages(subscribeKey: "demo", channel: "ch",
                                             query: HistoryQuery(range: HistoryRange(start: Timetoken(80), end: Timetoken(30)), limit: 2),
                                             now: now)
            XCTAssertEqual(HistoryFixture.timetokens(limited), [60, 70], name)
        }
    }

    func testCountsMessagesAfterTheTimetokenUpToALimit() throws {
        for (name, store) in try HistoryFixture.stores(self) {
            try seeded(store)
            XCTAssertEqual(try store.count(subscribeKey: "demo", channel: "ch", after: Timetoken(50), limit: 10_000, now: now), 5, name)
            XCTAssertEqual(try store.count(subscribeKey: "demo", channel: "ch", after: Timetoken(0), limit: 4, now: now), 4, name)
            XCTAssertEqual(try store.count(subscribeKey: "demo", channel: "ch", after: Timetoken(100), limit: 10, now: now), 0, name)
        }
    }

    func testDeleteFollowsPubNubsTable() throws {
        for (name, store) in try HistoryFixture.stores(self) {
            try store.append([9, 10, 11].map { HistoryFixture.message($0) })
            XCTAssertEqual(try store.delete(subscribeKey: "demo", channel: "ch", range: HistoryRange(start: Timetoken(9), end: Timetoken(11))), 2, name)
            let kept = try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: now)
            XCTAssertEqual(HistoryFixture.timetokens(kept), [9], name)
            try store.append([10, 11].map { HistoryFixture.message($0) })
            XCTAssertEqual(try store.delete(subscribeKey: "demo", channel: "ch", range: HistoryRange(start: Timetoken(11), end: Timetoken(9))), 2, name)
            XCTAssertEqual(HistoryFixture.timetokens(try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: now)), [11], name)
            XCTAssertEqual(try store.delete(subscribeKey: "demo", channel: "ch", range: .all), 1, name)
            XCTAssertEqual(try store.newestTimetoken(), Timetoken(11), "\(name): deletes never lower the newest timetoken")
        }
    }

    func testExpiredMessagesVanishFromEveryReadThenGetSwept() throws {
        for (name, store) in try HistoryFixture.stores(self) {
            try store.append([HistoryFixture.message(1, expires: now + 10), HistoryFixture.message(2),
                              HistoryFixture.message(3, expires: now + 20)])
            let later = now + 10
            XCTAssertEqual(HistoryFixture.timetokens(try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: later)), [2, 3], name)
            XCTAssertEqual(try store.count(subscribeKey: "demo", channel: "ch", after: .zero, limit: 100, now: later), 2, name)
            XCTAssertEqual(HistoryFixture.timetokens(try store.latest(perChannel: 10, after: .zero, now: later)), [2, 3], name)
            XCTAssertEqual(try store.expire(now: later, limit: 100), 1, name)
            XCTAssertEqual(try store.expire(now: now + 30, limit: 100), 1, name)
            XCTAssertEqual(HistoryFixture.timetokens(try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: now)), [2], name)
        }
    }

    func testLatestPerChannelForRingRebuild() throws {
        for (name, store) in try HistoryFixture.stores(self) {
            try seeded(store)
            let latest = try store.latest(perChannel: 2, after: Timetoken(10), now: now)
            XCTAssertEqual(latest.map { "\($0.subscribeKey)/\($0.channel)/\($0.timetoken)" },
                           ["demo/ch/90", "demo/ch/100", "demo/other/15", "key2/ch/15"], name)
            XCTAssertEqual(try store.newestTimetoken(), Timetoken(100), name)
        }
    }

    func testPayloadMetaAndFieldsRoundTripByteExact() throws {
        for (name, store) in try HistoryFixture.stores(self) {
            let payload = Array(#"{ "b" : [1, 2.50, "é\u00e9"],  "a":null }"#.utf8)
            var message = HistoryFixture.message(7)
            message.payload = payload
            message.meta = Array(#"{"k": "v" }"#.utf8)
            message.publisher = "alice"
            message.customMessageType = "chat-text"
            try store.append([message, HistoryFixture.message(7, payload: "\"duplicate ignored\"")])
            let found = try store.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: now)
            XCTAssertEqual(found, [message], name)
        }
    }

    func testBrokenFilesAreRefusedAtOpen() throws {
        let directory = try HistoryFixture.directory(self)
        let corrupt = directory + "/corrupt.sqlite"
        _ = FileManager.default.createFile(atPath: corrupt, contents: Data(repeating: 0x5A, count: 8192))
        XCTAssertThrowsError(try HistoryDatabase.file(path: corrupt)) { error in
            guard case .unavailable = error as? HistoryError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try HistoryDatabase.file(path: directory)) // a directory is not a database
        XCTAssertThrowsError(try HistoryDatabase.file(path: directory + "/missing/dir/history.sqlite"))
    }
}
