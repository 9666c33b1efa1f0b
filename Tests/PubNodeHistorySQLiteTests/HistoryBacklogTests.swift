import Dispatch
import PubNodeCore
import PubNodeTestSupport
import PubNodeServer
import XCTest

/// A memory store whose commits wait for the test: a database that has stopped answering.
private final class StalledStore: ForwardingHistoryStore {
    let inner = MemoryHistoryStore()
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)

    func append(_ messages: [StoredMessage]) throws(HistoryError) {
        entered.signal()
        gate.wait()
        try inner.append(messages)
    }
}

/// While the store has stopped answering, the writer's queue is bounded: past its bytes (the
/// batch being committed included), stored publishes are refused with 503 (delivered live, not
/// stored), and accepted again once it catches up.
final class HistoryBacklogTests: XCTestCase {
    func testABacklogOverItsBoundRefusesPublishesUntilTheStoreCatchesUp() throws {
        let store = StalledStore()
        let clock = TimetokenClock()
        let history = MessageHistory(store: store, policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 0, maxPendingBytes: 8)
        let router = Router(node: Node(keysets: [.demo], clock: clock, history: history))
        router.publish("ch", "%22first%22")
        store.entered.wait()  // its commit is now stuck in the store
        router.publish("ch", "%220123456789%22")  // queued: 12 bytes now wait
        XCTAssertTrue(history.writer.isBacklogFull)
        let (status, body) = router.call("/publish/demo/demo/0/ch/0/%22refused%22?uuid=tester")
        XCTAssertEqual(status, 503, body)
        XCTAssertTrue(body.hasPrefix(#"[0,"Service Unavailable: "#) && body.contains("history backlog full"), body)
        let (unstored, _) = router.call("/publish/demo/demo/0/ch/0/%22live%20only%22?uuid=tester&store=0")
        XCTAssertEqual(unstored, 200, "a publish that is not stored is never refused")

        store.gate.signal()
        store.gate.signal()
        history.writer.flush()
        XCTAssertFalse(history.writer.isBacklogFull)
        router.publish("ch", "%22after%22")
        store.gate.signal()
        history.writer.flush()
        let stored = try store.inner.messages(subscribeKey: "demo", channel: "ch", query: HistoryQuery(), now: clock.nowNanoseconds())
        XCTAssertEqual(stored.map { String(decoding: $0.payload, as: UTF8.self) }, ["\"first\"", "\"0123456789\"", "\"after\""])
    }
}
