import PubNodeCore
import PubNodeTestSupport
import PubNodeServer
import Synchronization
import XCTest

/// A memory store that fails every call with `failure` while one is set: a database away
/// (`unavailable`) or broken (`failed`, `full`).
private final class OutageStore: ForwardingHistoryStore {
    let inner = MemoryHistoryStore()
    let failure = Mutex<HistoryError?>(nil)
    let appends = Atomic<Int>(0)

    private func check() throws(HistoryError) {
        if let failure = failure.withLock({ $0 }) { throw failure }
    }
    func append(_ messages: [StoredMessage]) throws(HistoryError) {
        appends.add(1, ordering: .relaxed)
        try check()
        try inner.append(messages)
    }
    func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        try check()
        return try inner.messages(subscribeKey: subscribeKey, channel: channel, query: query, now: now)
    }
}

/// The outage policy through the production router: with the database unreachable, strict
/// publishes answer 503; default mode (on a store that buffers) acknowledges and keeps them
/// within the bound, then answers 503, and stores every acknowledged one once the database is
/// back. Other failures keep their 500, and a store that does not buffer (SQLite) loses a failed
/// batch as before.
final class HistoryOutageTests: XCTestCase {
    private let away = HistoryError.unavailable("connection refused")

    private func node(_ store: OutageStore, strict: Bool = false, buffer: Bool = true,
                      maxPendingBytes: Int = HistoryWriter.defaultMaxPendingBytes) -> (MessageHistory, Router) {
        let history = MessageHistory(store: store, policies: ["demo": HistoryPolicy()], clock: TimetokenClock(),
                                     flushMilliseconds: 0, strict: strict, bufferWhileUnavailable: buffer,
                                     maxPendingBytes: maxPendingBytes)
        return (history, Router(node: Node(keysets: [.demo], clock: history.clock, history: history)))
    }

    private func stored(_ store: OutageStore) throws -> [String] {
        try store.inner.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(limit: 100), now: 0)
            .map { String(decoding: $0.payload, as: UTF8.self) }
    }

    func testStrictPublishesAnswer503WhileTheDatabaseIsAwayAnd500ForOtherFailures() {
        let store = OutageStore()
        let (history, router) = node(store, strict: true)
        store.failure.withLock { $0 = away }
        let (status, body) = router.call("/publish/demo/demo/0/ch/0/%22lost%22?uuid=tester")
        XCTAssertEqual(status, 503, body)
        XCTAssertTrue(body.hasPrefix(#"[0,"Service Unavailable: history database unavailable: connection refused",""#), body)
        XCTAssertTrue(history.writer.isFailing(), "the node is not ready")
        XCTAssertFalse(history.writer.isRetrying, "strict mode never keeps a refused message")

        store.failure.withLock { $0 = .failed("syntax error") }
        let (failed, text) = router.call("/publish/demo/demo/0/ch/0/%22broken%22?uuid=tester")
        XCTAssertEqual(failed, 500, text)
        XCTAssertTrue(text.hasPrefix(#"[0,"Storage error: history storage failed: syntax error""#), text)
        store.failure.withLock { $0 = .full("disk full") }
        XCTAssertEqual(router.call("/publish/demo/demo/0/ch/0/%22full%22?uuid=tester").0, 500)

        store.failure.withLock { $0 = nil }
        router.publish("ch", "%22back%22")
        XCTAssertFalse(history.writer.isFailing())
        XCTAssertEqual(try stored(store), ["\"back\""], "nothing refused was stored")
    }

    func testDefaultModeBuffersWithinTheBoundThen503AndStoresEveryAcknowledgedMessageOnceBack() throws {
        let store = OutageStore()
        let (history, router) = node(store, maxPendingBytes: 40)
        router.publish("ch", "%22before%22")
        history.writer.flush()
        store.failure.withLock { $0 = away }
        var acknowledged = ["\"before\""]
        for index in 0..<3 {
            router.publish("ch", "%22kept-\(index)%22")  // 200: acknowledged, waiting for the database
            acknowledged.append("\"kept-\(index)\"")
            history.writer.flush()
            XCTAssertTrue(history.writer.isRetrying)
            XCTAssertTrue(history.writer.isFailing(), "the node is not ready while the database is away")
        }
        XCTAssertEqual(history.writer.statistics.lostMessages, 0)
        while !history.writer.isBacklogFull {
            let index = acknowledged.count
            router.publish("ch", "%22kept-\(index)%22")
            acknowledged.append("\"kept-\(index)\"")
        }
        let (status, body) = router.call("/publish/demo/demo/0/ch/0/%22refused%22?uuid=tester")
        XCTAssertEqual(status, 503, body)
        XCTAssertTrue(body.hasPrefix(#"[0,"Service Unavailable: "#) && body.contains("backlog full"), body)
        XCTAssertEqual(router.call("/publish/demo/demo/0/ch/0/%22live%22?uuid=tester&store=0").0, 200,
                       "a publish that is not stored is never refused")

        store.failure.withLock { $0 = nil }
        history.writer.flush()
        XCTAssertFalse(history.writer.isRetrying)
        XCTAssertFalse(history.writer.isFailing(), "ready again")
        XCTAssertFalse(history.writer.isBacklogFull)
        XCTAssertEqual(try stored(store).sorted(), acknowledged.sorted(), "every acknowledged message, nothing refused")
        let (fetched, page) = router.call("/v3/history/sub-key/demo/channel/ch")
        XCTAssertEqual(fetched, 200, page)
        XCTAssertTrue(page.contains("kept-0") && !page.contains("refused"), page)
        router.publish("ch", "%22after%22")
        history.writer.flush()
        XCTAssertEqual(try stored(store).last, "\"after\"")
    }

    func testWhileTheDatabaseIsAwayPublishesJoinTheQueueInsteadOfEachTryingTheStore() {
        let store = OutageStore()
        let (history, router) = node(store)
        store.failure.withLock { $0 = away }
        router.publish("ch", "%22first%22")
        history.writer.flush()
        let tried = store.appends.load(ordering: .relaxed)
        for index in 0..<50 { router.publish("ch", "%22n\(index)%22") }
        XCTAssertLessThan(store.appends.load(ordering: .relaxed) - tried, 10,
                          "the scheduled retry commits them, not each publish")
        XCTAssertEqual(history.writer.pendingCount, 51)
    }

    func testAStoreThatDoesNotBufferLosesAFailedBatchAsBefore() throws {
        let store = OutageStore()
        let (history, router) = node(store, buffer: false)
        store.failure.withLock { $0 = away }
        router.publish("ch", "%22lost%22")
        history.writer.flush()
        XCTAssertEqual(history.writer.statistics.lostMessages, 1)
        XCTAssertFalse(history.writer.isRetrying)
        store.failure.withLock { $0 = nil }
        router.publish("ch", "%22kept%22")
        history.writer.flush()
        XCTAssertEqual(try stored(store), ["\"kept\""])
    }
}
