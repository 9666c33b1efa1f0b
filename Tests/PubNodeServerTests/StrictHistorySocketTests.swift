import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PubNodeCore
import PubNodeServer
import Synchronization
import PubNodeTestSupport
import XCTest

/// A memory store that calls `onAppend` before each commit and `onRead` before each read, so a test
/// can hold commits back or observe where reads run.
final class InstrumentedStore: ForwardingHistoryStore {
    let inner = MemoryHistoryStore()
    private let onAppend: @Sendable () -> Void
    private let onRead: @Sendable () -> Void

    init(onAppend: @escaping @Sendable () -> Void = {}, onRead: @escaping @Sendable () -> Void = {}) {
        self.onAppend = onAppend
        self.onRead = onRead
    }

    func append(_ messages: [StoredMessage]) throws(HistoryError) {
        onAppend()
        try inner.append(messages)
    }
    func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        onRead()
        return try inner.messages(subscribeKey: subscribeKey, channel: channel, query: query, now: now)
    }
    func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64) throws(HistoryError) -> Int {
        onRead()
        return try inner.count(subscribeKey: subscribeKey, channel: channel, after: after, limit: limit, now: now)
    }
    func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        onRead()
        return try inner.delete(subscribeKey: subscribeKey, channel: channel, range: range)
    }
}

/// Strict history mode acknowledges a publish only after its commit, without blocking the event loop.
final class StrictHistorySocketTests: XCTestCase {
    func testStrictPublishWaitsForCommitWhileTheLoopKeepsServing() async throws {
        let gate = DispatchSemaphore(value: 0)
        let entered = Atomic<Bool>(false)
        let store = InstrumentedStore(onAppend: {
            entered.store(true, ordering: .sequentiallyConsistent)
            _ = gate.wait(timeout: .now() + 10)
        })
        let clock = TimetokenClock()
        let history = MessageHistory(store: store, policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 1, strict: true)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 1
        let server = PubNodeHTTPServer(configuration: configuration,
                                       node: Node(clock: clock, history: history))
        let port = try await server.start()
        let base = "http://127.0.0.1:\(port)"
        let session = URLSession(configuration: .ephemeral)
        let acknowledged = Mutex(false)
        let publish = Task {
            let result = try await session.data(from: URL(string: "\(base)/publish/demo/demo/0/durable/0/%22kept%22")!)
            acknowledged.withLock { $0 = true }
            return result
        }
        let pending = await eventually { entered.load(ordering: .sequentiallyConsistent) }
        XCTAssertTrue(pending, "the publish reached the store's commit")
        let (time, _) = try await session.data(from: URL(string: "\(base)/time/0")!)
        XCTAssertEqual(Response.parse(httpBody: time)[0]?.stringValue?.count, 17, "the one event loop still serves")
        XCTAssertFalse(acknowledged.withLock { $0 }, "no acknowledgement before the commit")
        gate.signal()
        let (body, response) = try await publish.value
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(Response.parse(httpBody: body)[1], .string("Sent"))
        let stored = try store.inner.latest(perChannel: 10, after: .zero, now: clock.nowNanoseconds())
        XCTAssertEqual(stored.map(\.channel), ["durable"])
        try await server.shutdown()
    }
}
