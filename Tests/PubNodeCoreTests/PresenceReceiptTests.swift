@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A subscriber's repeated presence refresh is skipped only while it can change nothing but the
/// expiry, and never by more than its window.
final class PresenceReceiptTests: XCTestCase {
    private let wall = ManualClock()

    private func hub() -> ChannelHub {
        ChannelHub(subscribeKey: "demo", limits: Limits(), clock: TimetokenClock(wall: wall))
    }

    private let room = PresenceUpdate(uuid: "u", channels: ["room"], timeoutSeconds: 20)

    func testTheWindowIsATenthOfTheTimeoutAndAtMostFiveSeconds() {
        XCTAssertEqual(PresenceReceipt.window(timeoutSeconds: 300), 5_000_000_000)
        XCTAssertEqual(PresenceReceipt.window(timeoutSeconds: 50), 5_000_000_000)
        XCTAssertEqual(PresenceReceipt.window(timeoutSeconds: 20), 2_000_000_000)
        XCTAssertEqual(PresenceReceipt.window(timeoutSeconds: 10), 1_000_000_000)
        XCTAssertEqual(PresenceReceipt.window(timeoutSeconds: 5), 500_000_000)
        XCTAssertEqual(PresenceReceipt.window(timeoutSeconds: 0), 100_000_000)
    }

    func testARefreshWithinTheWindowIsSkippedAndMovesTheExpiryByLessThanIt() throws {
        let hub = hub()
        let first = try hub.refresh(room, after: nil)
        XCTAssertEqual(hub.whereNow(uuid: "u"), ["room"])
        wall.advance(nanoseconds: 1_900_000_000)
        let skipped = try hub.refresh(room, after: first.receipt)
        XCTAssertEqual(skipped.receipt.refreshedAt, first.receipt.refreshedAt, "the first refresh still stands")
        // The skipped refresh did not push the expiry: the uuid times out 20 s after the first.
        wall.advance(nanoseconds: 18_100_000_000)
        XCTAssertEqual(hub.sweepPresence().counts.timedOut, 1)
        XCTAssertEqual(hub.whereNow(uuid: "u"), [])
    }

    func testARefreshAfterTheWindowIsMade() throws {
        let hub = hub()
        let first = try hub.refresh(room, after: nil)
        wall.advance(seconds: 2)
        let second = try hub.refresh(room, after: first.receipt)
        XCTAssertEqual(second.receipt.refreshedAt, first.receipt.refreshedAt + 2_000_000_000)
        wall.advance(seconds: 19)
        XCTAssertEqual(hub.sweepPresence().counts.timedOut, 0, "expires 20 s after the second refresh")
        wall.advance(seconds: 1)
        XCTAssertEqual(hub.sweepPresence().counts.timedOut, 1)
    }

    func testALeaveOrATimeoutInTheKeysetEndsTheSkip() throws {
        let hub = hub()
        let first = try hub.refresh(room, after: nil)
        // The uuid itself leaves (say from another connection): the next poll makes it present again.
        _ = hub.leave(uuid: "u", channels: ["room"], groups: [])
        XCTAssertEqual(hub.whereNow(uuid: "u"), [])
        let rejoined = try hub.refresh(room, after: first.receipt)
        XCTAssertEqual(hub.whereNow(uuid: "u"), ["room"])
        XCTAssertEqual(hub.presence.occupancy(of: ["room"]).first?.occupancy, 1)
        // Another uuid timing out counts as well: the keyset's removals are counted, not the uuid's.
        _ = try hub.heartbeat(PresenceUpdate(uuid: "v", channels: ["other"], timeoutSeconds: 20))
        wall.advance(nanoseconds: 500_000_000)
        _ = try hub.heartbeat(room)
        wall.advance(nanoseconds: 19_600_000_000)
        XCTAssertEqual(hub.sweepPresence().counts.timedOut, 1, "v timed out, u was refreshed at 0.5 s")
        let after = try hub.refresh(room, after: rejoined.receipt)
        XCTAssertNotEqual(after.receipt.refreshedAt, rejoined.receipt.refreshedAt)
    }

    func testStateAndGroupsAreRefreshedEveryTime() throws {
        let hub = hub()
        let stated = PresenceUpdate(uuid: "u", channels: ["room"], state: Array(#"{"room":{"mood":"up"}}"#.utf8))
        let first = try hub.refresh(stated, after: nil)
        _ = try hub.setState(uuid: "u", channels: ["room"], groups: [], state: Array(#"{"mood":"down"}"#.utf8))
        _ = try hub.refresh(stated, after: first.receipt)
        XCTAssertEqual(hub.state(of: "u", channels: ["room"], groups: []).first?.state, Array(#"{"mood":"up"}"#.utf8))

        try hub.addChannels(["g1"], toGroup: "grp")
        let grouped = PresenceUpdate(uuid: "w", groups: ["grp"])
        let grouping = try hub.refresh(grouped, after: nil)
        try hub.addChannels(["g2"], toGroup: "grp")
        _ = try hub.refresh(grouped, after: grouping.receipt)
        XCTAssertEqual(hub.whereNow(uuid: "w").sorted(), ["g1", "g2"], "a new member is joined on the next poll")
    }

    func testAnotherPresencesReceiptIsNotTrusted() throws {
        let old = hub()
        let receipt = try old.refresh(room, after: nil).receipt
        // The keyset deleted and made again: a new hub, whose presence never saw the uuid.
        let new = hub()
        _ = try new.refresh(room, after: receipt)
        XCTAssertEqual(new.whereNow(uuid: "u"), ["room"])
    }

    func testTheNodeKeepsTheReceiptOfAPreparedSubscribe() throws {
        let node = Node(clock: TimetokenClock(wall: wall))
        let prepared = try node.prepare(SubscribeRequest(subscribeKey: "demo", channels: ["room"], uuid: "u"))
        var receipt: PresenceReceipt?
        _ = try node.subscribe(prepared, cursor: Timetoken(1), presence: &receipt)
        let first = try XCTUnwrap(receipt)
        try node.leave(PresenceRequest(subscribeKey: "demo", channels: ["room"], uuid: "u"))
        _ = try node.subscribe(prepared, cursor: Timetoken(2), presence: &receipt)
        guard case .now(let present) = try node.whereNow(PresenceRequest(subscribeKey: "demo"), of: "u") else {
            return XCTFail("in-process presence answers at once")
        }
        XCTAssertEqual(present, ["room"], "re-joined after the leave")
        XCTAssertEqual(receipt?.refreshedAt, first.refreshedAt, "the clock did not move")
        XCTAssertNotEqual(receipt?.removals, first.removals)
    }
}
