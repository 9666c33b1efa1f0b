import NIOPosix
import PubNodeCore
import PubNodeServer
import Synchronization
import XCTest

/// A store that records whether each read ran on an event-loop thread.
final class ThreadRecordingStore: HistoryStore {
    let inner = MemoryHistoryStore()
    private let onLoop = Mutex<[Bool]>([])

    var readsOnEventLoop: [Bool] { onLoop.withLock { $0 } }

    private func record() { onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) } }

    func append(_ messages: [StoredMessage]) throws(HistoryError) { try inner.append(messages) }
    func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        record()
        return try inner.messages(subscribeKey: subscribeKey, channel: channel, query: query, now: now)
    }
    func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64) throws(HistoryError) -> Int {
        record()
        return try inner.count(subscribeKey: subscribeKey, channel: channel, after: after, limit: limit, now: now)
    }
    func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        record()
        return try inner.delete(subscribeKey: subscribeKey, channel: channel, range: range)
    }
    func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int { try inner.expire(now: now, limit: limit) }
    func newestTimetoken() throws(HistoryError) -> Timetoken? { try inner.newestTimetoken() }
    func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        try inner.latest(perChannel: perChannel, after: after, now: now)
    }
}

/// History endpoints read the store off the event loops, over a real socket.
final class HistoryReadThreadTests: XCTestCase {
    func testHistoryReadsNeverRunOnAnEventLoop() async throws {
        let store = ThreadRecordingStore()
        let clock = TimetokenClock()
        let history = MessageHistory(store: store, policies: ["demo": HistoryPolicy()], clock: clock, flushMilliseconds: 1)
        let socket = try await SocketNode.start(Node(clock: clock, history: history))
        XCTAssertEqual(try socket.get("/publish/demo/demo/0/c/0/%22hi%22")?.status, 200)
        let fetched = try socket.get("/v3/history/sub-key/demo/channel/c")
        XCTAssertEqual(fetched?.status, 200)
        XCTAssertTrue(fetched?.text.contains("\"hi\"") ?? false, fetched?.text ?? "")
        XCTAssertEqual(try socket.get("/v2/history/sub-key/demo/channel/c")?.status, 200)
        XCTAssertEqual(try socket.get("/v3/history/sub-key/demo/message-counts/c?timetoken=1")?.status, 200)
        let deleteSocket = try RawSocket(port: socket.port)
        deleteSocket.send("DELETE /v3/history/sub-key/demo/channel/c HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(deleteSocket.response()?.status, 200)
        try await socket.server.shutdown()
        XCTAssertEqual(store.readsOnEventLoop.count, 4)
        XCTAssertEqual(store.readsOnEventLoop, [false, false, false, false], "no read may block an event loop")
    }
}
