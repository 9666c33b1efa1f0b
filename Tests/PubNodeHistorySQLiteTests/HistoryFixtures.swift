import Foundation
import NIOCore
import NIOHTTP1
import PubNodeCore
import PubNodeHistorySQLite
import PubNodeHistoryPostgres
import PubNodeServer
import PubNodeTestSupport
import Synchronization
import XCTest

/// A wall clock the test sets by hand.
final class TestClock: WallClock {
    static let start: UInt64 = 1_700_000_000_000_000_000
    private let now = Mutex<UInt64>(TestClock.start)

    func nowNanoseconds() -> UInt64 { now.withLock { $0 } }

    func advance(hours: UInt64) { now.withLock { $0 += hours * 3_600_000_000_000 } }
}

/// A store that fails every write, for the disk-full path.
final class FailingStore: HistoryStore {
    func append(_ messages: [StoredMessage]) throws(HistoryError) { throw .full("no space left on device") }
    func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64) throws(HistoryError) -> [StoredMessage] { [] }
    func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64) throws(HistoryError) -> Int { 0 }
    func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int { 0 }
    func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int { 0 }
    func deleteAll(subscribeKey: String) throws(HistoryError) -> Int { 0 }
    func newestTimetoken() throws(HistoryError) -> Timetoken? { nil }
    func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage] { [] }
}

enum HistoryFixture {
    /// A fresh temporary directory, removed when the test ends.
    static func directory(_ test: XCTestCase) throws -> String {
        let path = NSTemporaryDirectory() + "pubnode-history-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// The same store contract on every implementation: SQLite in memory, SQLite in a file, and memory.
    /// PostgreSQL joins when the test class started a server (`PostgresSubject`).
    static func stores(_ test: XCTestCase) throws -> [(String, any HistoryStore)] {
        let file = try directory(test) + "/history.sqlite"
        let postgres = try PostgresSubject.database(test).map { [("postgres", PostgresHistoryStore(database: $0) as any HistoryStore)] }
        return [
            ("sqlite-memory", SQLiteHistoryStore(database: try HistoryDatabase.inMemory())),
            ("sqlite-file", SQLiteHistoryStore(database: try HistoryDatabase.file(path: file))),
            ("memory", MemoryHistoryStore()),
        ] + (postgres ?? [])
    }

    static func message(_ timetoken: UInt64, channel: String = "ch", key: String = "demo", payload: String? = nil,
                        expires: UInt64? = nil) -> StoredMessage {
        StoredMessage(subscribeKey: key, channel: channel, timetoken: Timetoken(timetoken),
                      payload: Array((payload ?? "\(timetoken)").utf8), expiresAtNanoseconds: expires)
    }

    static func timetokens(_ messages: [StoredMessage]) -> [UInt64] { messages.map(\.timetoken.rawValue) }

    /// A node with history on `store`, its router and its clock.
    static func node(store: any HistoryStore, keysets: [Keyset] = [.demo], policies: [String: HistoryPolicy]? = nil,
                     wall: any WallClock = SystemWallClock(), strict: Bool = false) -> (Node, Router) {
        let clock = TimetokenClock(wall: wall)
        let history = MessageHistory(store: store, policies: policies ?? ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 5, strict: strict)
        let node = Node(keysets: keysets, clock: clock, history: history)
        return (node, Router(node: node))
    }
}

extension Router {
    /// Routes a request and returns the reply's status and body text (non-reply actions fail).
    func call(_ uri: String, method: HTTPMethod = .GET, file: StaticString = #filePath, line: UInt = #line) -> (Int, String) {
        guard let request = try? PubNubRequest(method: method, uri: uri) else {
            XCTFail("bad uri \(uri)", file: file, line: line)
            return (0, "")
        }
        guard let reply = answerWaiting(request) else {
            XCTFail("no answer: a long-poll, or no deferred answer in time", file: file, line: line)
            return (0, "")
        }
        return (Int(reply.status.code), String(buffer: reply.body))
    }

    /// Publishes `json` (already percent-encoded) on `channel`; returns the timetoken.
    @discardableResult
    func publish(_ channel: String, _ json: String, query: String = "", file: StaticString = #filePath, line: UInt = #line) -> UInt64 {
        let (status, body) = call("/publish/demo/demo/0/\(channel)/0/\(json)?uuid=tester\(query)", file: file, line: line)
        XCTAssertEqual(status, 200, body, file: file, line: line)
        return UInt64(body.split(separator: "\"").dropLast().last.map(String.init) ?? "") ?? 0
    }
}

/// Parses JSON text for assertions.
func parse(_ text: String) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}
