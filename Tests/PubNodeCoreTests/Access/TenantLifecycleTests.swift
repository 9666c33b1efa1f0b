@testable import PubNodeCore
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

    /// A connection's repeated poll keeps the keyset it started on only while that keyset is
    /// served: once it is deleted the key is looked up again, and a keyset created under the same
    /// key starts a new long-poll on its own broker.
    func testARepeatedPollLeavesADeletedKeysetForItsSuccessor() async throws {
        let node = Node(adminToken: admin)
        let spec = KeysetSpec(publishKey: "p", subscribeKey: "t", accessManager: false)
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        let prepared = try node.prepare(SubscribeRequest(subscribeKey: "t", channels: ["c"]))
        var receipt: PresenceReceipt?
        let cursor = node.time()
        guard case .poll(let first) = try node.subscribe(prepared, cursor: cursor, presence: &receipt) else {
            return XCTFail("expected a long-poll")
        }
        XCTAssertNil(try node.subscribe(prepared, cursor: cursor, presence: &receipt, repeating: first),
                     "served: the same long-poll serves again")
        let deleted = try XCTUnwrap(node.registry.keyset("t"))
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "t"), credential: admin))
        XCTAssertFalse(deleted.isServed)
        XCTAssertThrowsError(try node.subscribe(prepared, cursor: cursor, presence: &receipt, repeating: first)) {
            XCTAssertEqual($0 as? PubNodeError, .invalidKey)
        }
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        guard case .poll(let next) = try node.subscribe(prepared, cursor: cursor, presence: &receipt, repeating: first)
        else { return XCTFail("a new long-poll on the new keyset was expected") }
        let waiter = TestWaiter()
        XCTAssertNil(next.park(waiter))
        _ = try await node.publish(PublishRequest(publishKey: "p", subscribeKey: "t", channel: "c", payload: Array("1".utf8)))
        XCTAssertEqual(waiter.wakeCount, 1, "parked on the new keyset's channel, which the publish reaches")
        XCTAssertTrue(try XCTUnwrap(node.registry.keyset("t")).isServed)
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

    /// A connection's repeated publish keeps the keyset its key was accepted on only while that
    /// keyset is served: once it is deleted the key is looked up again, and a keyset created under
    /// the same subscribe key with another publish key refuses it; one with the same key takes
    /// the publish into its own buffer.
    func testARepeatedPublishLeavesADeletedKeysetForItsSuccessor() async throws {
        let node = Node(adminToken: admin)
        let spec = KeysetSpec(publishKey: "p", subscribeKey: "t", accessManager: false)
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        let prepared = try node.prepare(PublishRequest(publishKey: "p", subscribeKey: "t", channel: "c",
                                                       payload: Array("0".utf8)))
        func publish(_ text: String) throws(PubNodeError) {
            guard case .done = try node.begin(prepared, payload: Array(text.utf8)) else {
                return XCTFail("expected the publish accepted at once")
            }
        }
        try publish("1")
        let first = try XCTUnwrap(node.registry.keyset("t"))
        try publish("2")
        func payloads() -> [String] {
            (node.broker.keyset("t")?.read(Subscription(channels: ["c"]), after: .zero).deliveries ?? [])
                .map { String(decoding: $0.message.payload, as: UTF8.self) }
        }
        XCTAssertEqual(payloads(), ["1", "2"], "both on the keyset served")
        XCTAssertTrue(prepared.served?.channel === node.broker.keyset("t")?.channelState(for: Subscription(channels: ["c"])),
                      "the channel's state is kept with the keyset")
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "t"), credential: admin))
        XCTAssertThrowsError(try publish("3")) { XCTAssertEqual($0 as? PubNodeError, .invalidKey) }
        let other = KeysetSpec(publishKey: "q", subscribeKey: "t", accessManager: false)
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(other), credential: admin))
        XCTAssertThrowsError(try publish("4"), "the successor has another publish key") {
            XCTAssertEqual($0 as? PubNodeError, .invalidKey)
        }
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "t"), credential: admin))
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        try publish("5")
        let successor = try XCTUnwrap(node.registry.keyset("t"))
        XCTAssertFalse(successor === first)
        XCTAssertEqual(payloads(), ["5"], "only what was published once it was served")
        XCTAssertTrue(prepared.served?.keyset === successor)
        XCTAssertTrue(prepared.served?.channel === node.broker.keyset("t")?.channelState(for: Subscription(channels: ["c"])),
                      "the successor's channel state, not the first keyset's")
        // A disabled keyset refuses a kept publish as it refuses any.
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .disable(subscribeKey: "t", true), credential: admin))
        XCTAssertThrowsError(try publish("6")) { XCTAssertEqual($0 as? PubNodeError, .accessRefused("Keyset is disabled")) }
    }

    /// A keyset another node changed (its publish key here) is replaced at this node's reconcile
    /// by a new object, the old one withdrawn but not disabled: a repeated publish that kept the
    /// old keyset looks the key up again and is refused with its old publish key.
    func testARepeatedPublishKeepsNoKeysetAReconcileReplaced() async throws {
        let store = MemoryAccessStore()
        let node = Node(adminToken: admin, accessStore: store)
        try store.save(StoredKeyset(keyset: Keyset(publishKey: "p", subscribeKey: "t", accessManager: false)))
        let added = try await node.reconcileAccess()
        XCTAssertEqual(added.added, ["t"])
        let prepared = try node.prepare(PublishRequest(publishKey: "p", subscribeKey: "t", channel: "c",
                                                       payload: Array("0".utf8)))
        guard case .done = try node.begin(prepared, payload: Array("1".utf8)) else { return XCTFail("expected accepted") }
        let first = try XCTUnwrap(node.registry.keyset("t"))
        try store.save(StoredKeyset(keyset: Keyset(publishKey: "q", subscribeKey: "t", accessManager: false)))
        let updated = try await node.reconcileAccess()
        XCTAssertEqual(updated.updated, ["t"])
        XCTAssertFalse(first.isServed)
        XCTAssertFalse(first.isDisabled, "withdrawn, not disabled: only the served check refuses it")
        XCTAssertThrowsError(try node.begin(prepared, payload: Array("2".utf8))) {
            XCTAssertEqual($0 as? PubNodeError, .invalidKey)
        }
    }
}

/// A history store whose keyset purge fails while `refuse` is set.
final class RefusingPurgeStore: ForwardingHistoryStore, @unchecked Sendable {
    // Invariant: `refuse` is written by the test only while no purge runs.
    var refuse = true
    let inner = MemoryHistoryStore()

    func deleteAll(subscribeKey: String) throws(HistoryError) -> Int {
        if refuse { throw .unavailable("disk full") }
        return try inner.deleteAll(subscribeKey: subscribeKey)
    }
}
