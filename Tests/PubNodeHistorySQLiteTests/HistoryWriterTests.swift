import Dispatch
import PubNodeCore
import PubNodeHistorySQLite
import PubNodeTestSupport
import Synchronization
import XCTest

final class HistoryWriterTests: XCTestCase {
    func testGroupCommitBatchesMessagesOffTheCallersThread() throws {
        let store = SQLiteHistoryStore(database: try HistoryDatabase.file(path: try HistoryFixture.directory(self) + "/h.sqlite"))
        let writer = HistoryWriter(store: store, flushMilliseconds: 20)
        for timetoken in 1...500 { writer.append(HistoryFixture.message(UInt64(timetoken))) }
        XCTAssertGreaterThan(writer.pendingCount, 0, "append returns before the commit")
        writer.flush()
        let statistics = writer.statistics
        XCTAssertEqual(statistics.committedMessages, 500)
        XCTAssertLessThan(statistics.commits, 50, "messages are grouped into few transactions")
        XCTAssertEqual(try store.count(subscribeKey: "demo", channel: "ch", after: .zero, limit: 1000, now: 0), 500)
    }

    func testMessagesAreCommittedWithinTheFlushInterval() async throws {
        let store = MemoryHistoryStore()
        let writer = HistoryWriter(store: store, flushMilliseconds: 10)
        writer.append(HistoryFixture.message(1))
        _ = await eventually(timeout: .seconds(2)) { (try? store.newestTimetoken()) != nil }
        XCTAssertEqual(try store.newestTimetoken(), Timetoken(1), "committed without any flush call")
    }

    func testAcknowledgeAfterCommit() throws {
        let store = SQLiteHistoryStore(database: try HistoryDatabase.inMemory())
        let writer = HistoryWriter(store: store, flushMilliseconds: 1000)
        let committed = expectation(description: "commit")
        writer.append(HistoryFixture.message(5)) { result in
            if case .failure(let error) = result { XCTFail("\(error)") }
            let newest = try? store.newestTimetoken()
            XCTAssertEqual(newest, Timetoken(5), "visible when acknowledged")
            committed.fulfill()
        }
        wait(for: [committed], timeout: 0.5) // far below the 1 s flush interval: strict commits at once
        XCTAssertNoThrow(try writer.appendAndWait(HistoryFixture.message(6)).get())
        XCTAssertEqual(try store.newestTimetoken(), Timetoken(6))
    }

    func testFailedCommitsAreCountedAndReportedNeverFatal() throws {
        let reported = Mutex(0)
        let writer = HistoryWriter(store: FailingStore(), flushMilliseconds: 1) { _, count in reported.withLock { $0 += count } }
        writer.append(HistoryFixture.message(1))
        writer.append(HistoryFixture.message(2))
        writer.flush()
        guard case .failure(.full) = writer.appendAndWait(HistoryFixture.message(3)) else { return XCTFail("expected full") }
        XCTAssertEqual(writer.statistics.lostMessages, 3)
        XCTAssertEqual(reported.withLock { $0 }, 3)
        XCTAssertEqual(writer.statistics.lastError, .full("no space left on device"))
        // Failing now, for readiness; a failure ages out so an idle node is tried again.
        XCTAssertTrue(writer.isFailing(within: .seconds(3600)))
        XCTAssertFalse(writer.isFailing(within: .zero))
        XCTAssertFalse(HistoryWriter(store: MemoryHistoryStore()).isFailing(), "nothing failed yet")
    }
}

final class MessageHistoryTests: XCTestCase {
    func testTTLAndRetentionWithAnInjectedClock() throws {
        let wall = TestClock()
        let store = MemoryHistoryStore()
        let (node, router) = HistoryFixture.node(store: store, policies: ["demo": HistoryPolicy(retentionHours: 2)], wall: wall)
        router.publish("c", "1", query: "&ttl=1")
        router.publish("c", "2")
        router.publish("c", "3", query: "&ttl=0")
        let fetch = { (try node.history!.fetch(subscribeKey: "demo", channel: "c", query: HistoryQuery())).map { String(decoding: $0.payload, as: UTF8.self) } }
        XCTAssertEqual(try fetch(), ["1", "2", "3"])
        wall.advance(hours: 1)
        XCTAssertEqual(try fetch(), ["2", "3"], "ttl=1 expires after one hour")
        wall.advance(hours: 1)
        XCTAssertEqual(try fetch(), ["3"], "retention (2 h) applies without ttl; ttl=0 keeps forever")
        wall.advance(hours: 10_000)
        XCTAssertEqual(try node.history!.sweep(), 2)
        XCTAssertEqual(try fetch(), ["3"])
    }

    func testTheExpirySweepRemovesExpiredMessagesInChunksOnTheWriterQueue() async throws {
        let wall = TestClock()
        let store = MemoryHistoryStore()
        let (node, router) = HistoryFixture.node(store: store, policies: ["demo": HistoryPolicy(retentionHours: 1)], wall: wall)
        for index in 0..<5 { router.publish("c", "\(index)") }
        router.publish("c", "99", query: "&ttl=0")
        wall.advance(hours: 2)
        let history = try XCTUnwrap(node.history)
        history.writer.flush()
        let removed = try await history.sweepExpired(chunk: 2)
        XCTAssertEqual(removed, 5, "three chunks: 2, 2, then 1")
        let again = try await history.sweepExpired(chunk: 2)
        XCTAssertEqual(again, 0)
        let left = try history.fetch(subscribeKey: "demo", channel: "c", query: HistoryQuery())
        XCTAssertEqual(left.map { String(decoding: $0.payload, as: UTF8.self) }, ["99"])
    }

    func testOnlyStoredMessagesOfEnabledKeysetsAreKept() throws {
        let store = MemoryHistoryStore()
        let keysets = [Keyset.demo, Keyset(publishKey: "p2", subscribeKey: "off")]
        let (node, router) = HistoryFixture.node(store: store, keysets: keysets,
                                                    policies: ["demo": HistoryPolicy(), "off": HistoryPolicy(enabled: false)])
        router.publish("c", "1")
        router.publish("c", "2", query: "&store=0")
        _ = router.call("/signal/demo/demo/0/c/0/3")
        _ = router.call("/publish/demo/demo/0/c/0/4?store=0&norep=true")
        _ = router.call("/publish/p2/off/0/c/0/5")
        node.history!.writer.flush()
        XCTAssertEqual(try store.latest(perChannel: 100, after: .zero, now: 0).map { String(decoding: $0.payload, as: UTF8.self) }, ["1"])
        let (status, body) = router.call("/v3/history/sub-key/off/channel/c")
        XCTAssertEqual(status, 403)
        XCTAssertTrue(body.contains("Storage is not enabled for this subscribe key"), body)
    }

    func testStrictModeAcknowledgesAfterCommitAndReportsFailures() throws {
        let store = SQLiteHistoryStore(database: try HistoryDatabase.inMemory())
        let (_, router) = HistoryFixture.node(store: store, strict: true)
        let timetoken = router.publish("c", "1")
        XCTAssertEqual(try store.newestTimetoken(), Timetoken(timetoken), "committed before the reply")
        let (_, failing) = HistoryFixture.node(store: FailingStore(), strict: true)
        let (status, body) = failing.call("/publish/demo/demo/0/c/0/1")
        XCTAssertEqual(status, 500)
        XCTAssertTrue(body.hasPrefix("[0,\"Storage error"), body)
    }
}
