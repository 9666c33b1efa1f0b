import PubNodeCore
import PubNodeHistorySQLite
import PubNodeTestSupport
import XCTest

/// Message actions through the node over the SQLite store: they expire with the keyset's retention
/// and go with a deleted keyset.
final class MessageActionLifecycleTests: XCTestCase {
    private let admin = "admin-token-0123456789"

    private func node(wall: TestClock) throws -> (Node, SQLiteMessageActionStore) {
        let database = try HistoryDatabase.inMemory()
        let clock = TimetokenClock(wall: wall)
        let history = MessageHistory(store: SQLiteHistoryStore(database: database),
                                     policies: ["demo": HistoryPolicy(retentionHours: 2)], created: HistoryPolicy(),
                                     clock: clock, flushMilliseconds: 1)
        let actions = SQLiteMessageActionStore(database: database)
        return (Node(clock: clock, adminToken: admin, history: history, messageActions: actions), actions)
    }

    private func add(_ node: Node, key: String = "demo", value: String = "smile") async throws -> MessageAction {
        try await node.addMessageAction(MessageActionRequest(
            subscribeKey: key, channel: "ch", action: .add(messageTimetoken: Timetoken(100), type: "reaction", value: value),
            uuid: "alice"))
    }

    func testActionsExpireWithTheRetentionAndAreSwept() async throws {
        let wall = TestClock()
        let (node, store) = try node(wall: wall)
        let action = try await add(node)
        XCTAssertEqual(action.expiresAtNanoseconds, TestClock.start + 2 * 3_600_000_000_000)
        wall.advance(hours: 1)
        let kept = try await node.messageActions(MessageActionQuery(subscribeKey: "demo", channel: "ch"))
        XCTAssertEqual(kept.actions, [action])
        let nothingDue = try await node.sweepMessageActions()
        XCTAssertEqual(nothingDue, 0)
        wall.advance(hours: 1)
        let gone = try await node.messageActions(MessageActionQuery(subscribeKey: "demo", channel: "ch"))
        XCTAssertEqual(gone.actions, [], "expired actions are left out before any sweep")
        let swept = try await node.sweepMessageActions()
        XCTAssertEqual(swept, 1)
        XCTAssertEqual(try store.expire(now: .max / 2, limit: 10), 0, "nothing left")
        let again = try await add(node)
        XCTAssertEqual(again.value, "smile", "the expired action no longer counts as a duplicate")
    }

    func testDeletingAKeysetDeletesItsActions() async throws {
        let (node, store) = try node(wall: TestClock())
        let spec = KeysetSpec(publishKey: "p", subscribeKey: "t", accessManager: false)
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .create(spec), credential: admin))
        _ = try await add(node, key: "t")
        _ = try await add(node, key: "demo")
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "t"), credential: admin))
        XCTAssertEqual(try store.actions(subscribeKey: "t", channel: "ch", range: .all, limit: 10, now: 0), [])
        XCTAssertEqual(try store.actions(subscribeKey: "demo", channel: "ch", range: .all, limit: 10, now: 0).count, 1)
    }
}
