import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A keyset's life at the node level: what was authorized on it is never applied to another.
final class TenantLifecycleTests: XCTestCase {
    private let admin = "admin-token-0123456789"

    /// A publish waiting for its before hooks when its keyset is deleted and recreated under the
    /// same subscribe key is refused, not delivered into the new keyset.
    func testAPublishAuthorizedOnADeletedKeysetIsNotAppliedToItsSuccessor() async throws {
        let hook = HookBinding(name: "slow", trigger: .beforePublish, subscribeKey: "t", channels: ["*"],
                               handler: .before(ClosureBefore { _ in .pass }))
        let node = Node(adminToken: admin, hooks: try HookEngine(bindings: [hook]))
        let spec = KeysetSpec(publishKey: "p", subscribeKey: "t", accessManager: false)
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        guard case .awaitingHooks(let pending) = try node.begin(PublishRequest(publishKey: "p", subscribeKey: "t", channel: "c",
                                                                              payload: Array("1".utf8))) else {
            return XCTFail("the before hook should hold the publish")
        }
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "t"), credential: admin))
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        do {
            _ = try await node.complete(pending)
            XCTFail("accepted into the new keyset")
        } catch {
            XCTAssertEqual(error, .invalidKey)
        }
        let start = try node.subscribe(SubscribeRequest(subscribeKey: "t", channels: ["c"]))
        guard case .handshake = start else { return XCTFail("expected a handshake") }
        XCTAssertTrue(node.broker.keyset("t")?.read(Subscription(channels: ["c"]), after: .zero).deliveries.isEmpty ?? false)
    }

    /// A keyset whose history cannot be purged is not forgotten: it stays, disabled, to be deleted again.
    func testADeleteThatCannotPurgeHistoryLeavesTheKeysetDisabled() async throws {
        let store = RefusingPurgeStore()
        let history = MessageHistory(store: store, policies: [:], created: HistoryPolicy(), clock: TimetokenClock(),
                                     flushMilliseconds: 1)
        let node = Node(adminToken: admin, history: history)
        let spec = KeysetSpec(publishKey: "p", subscribeKey: "t", accessManager: false)
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        do {
            _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "t"), credential: admin))
            XCTFail("the purge failed: the delete must say so")
        } catch {
            guard case .storageFailed = error else { return XCTFail("\(error)") }
        }
        XCTAssertTrue(node.registry.keyset("t")?.isDisabled ?? false, "kept, and refused")
        store.refuse = false
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "t"), credential: admin))
        XCTAssertNil(node.registry.keyset("t"))
    }
}

/// A history store whose keyset purge fails while `refuse` is set.
final class RefusingPurgeStore: HistoryStore, @unchecked Sendable {
    // Invariant: `refuse` is written by the test only while no purge runs.
    var refuse = true
    private let inner = MemoryHistoryStore()

    func append(_ messages: [StoredMessage]) throws(HistoryError) { try inner.append(messages) }
    func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        try inner.messages(subscribeKey: subscribeKey, channel: channel, query: query, now: now)
    }
    func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64) throws(HistoryError) -> Int {
        try inner.count(subscribeKey: subscribeKey, channel: channel, after: after, limit: limit, now: now)
    }
    func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        try inner.delete(subscribeKey: subscribeKey, channel: channel, range: range)
    }
    func deleteAll(subscribeKey: String) throws(HistoryError) -> Int {
        if refuse { throw .unavailable("disk full") }
        return try inner.deleteAll(subscribeKey: subscribeKey)
    }
    func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int { try inner.expire(now: now, limit: limit) }
    func newestTimetoken() throws(HistoryError) -> Timetoken? { try inner.newestTimetoken() }
    func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        try inner.latest(perChannel: perChannel, after: after, now: now)
    }
}
