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

    func testTheWindowIsATenthOfTheTimeoutAtMostFiveSecondsAndKeepsALongPollsMargin() {
        func window(_ timeout: Int, longPoll: Int = 280) -> UInt64 {
            PresenceReceipt.window(timeoutSeconds: timeout, longPollSeconds: longPoll)
        }
        XCTAssertEqual(window(300), 5_000_000_000, "20 s spare after a 280 s long-poll: the margin is kept")
        XCTAssertEqual(window(50), 5_000_000_000, "shorter than a long-poll: the client heartbeats on its own")
        XCTAssertEqual(window(20), 2_000_000_000)
        XCTAssertEqual(window(10), 1_000_000_000)
        XCTAssertEqual(window(0), 100_000_000)
        XCTAssertEqual(window(288), 3_000_000_000, "8 s spare, 5 kept")
        XCTAssertEqual(window(285), 0, "nothing to spare: every refresh is made")
        XCTAssertEqual(window(281), 0)
        XCTAssertEqual(window(300, longPoll: 20), 5_000_000_000)
    }

    func testASkippedRefreshLeavesTheReceiptAsItWas() throws {
        let hub = hub()
        var receipt: PresenceReceipt?
        XCTAssertTrue(try hub.refresh(room, receipt: &receipt).isEmpty)
        let first = try XCTUnwrap(receipt)
        wall.advance(nanoseconds: 1_000_000)
        XCTAssertTrue(try hub.refresh(room, receipt: &receipt).isEmpty)
        XCTAssertEqual(receipt?.refreshedAt, first.refreshedAt, "skipped: the first refresh still stands")
    }

    func testATimeoutJustOverTheLongPollIsRefreshedEveryTime() throws {
        let hub = hub()
        let update = PresenceUpdate(uuid: "u", channels: ["room"], timeoutSeconds: 283)
        let first = try hub.refresh(update, after: nil)
        wall.advance(nanoseconds: 1_000_000)
        let second = try hub.refresh(update, after: first.receipt)
        XCTAssertEqual(second.receipt.refreshedAt, first.receipt.refreshedAt + 1_000_000)
    }

    func testAnotherRequestChangingTheTimeoutEndsTheSkip() throws {
        let hub = hub()
        let long = PresenceUpdate(uuid: "u", channels: ["room"], timeoutSeconds: 300)
        let first = try hub.refresh(long, after: nil)
        // A heartbeat of the same uuid with a short timeout, then the poll's refresh within its window.
        wall.advance(seconds: 1)
        _ = try hub.heartbeat(PresenceUpdate(uuid: "u", channels: ["room"], timeoutSeconds: 20))
        wall.advance(seconds: 1)
        let second = try hub.refresh(long, after: first.receipt)
        XCTAssertEqual(second.receipt.refreshedAt, first.receipt.refreshedAt + 2_000_000_000, "refreshed again")
        wall.advance(seconds: 25)
        XCTAssertEqual(hub.sweepPresence().counts.timedOut, 0, "the poll's 300 s timeout stands again")
        XCTAssertEqual(hub.whereNow(uuid: "u"), ["room"])
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
        _ = try hub.refresh(room, after: first.receipt)
        XCTAssertEqual(hub.whereNow(uuid: "u"), ["room"])
        XCTAssertEqual(hub.presence.occupancy(of: ["room"]).first?.occupancy, 1)
        // Another uuid timing out counts as well (the keyset's changes are counted, not the
        // uuid's): inside a 5 s window, only v's timeout makes w's next poll refresh.
        let long = PresenceUpdate(uuid: "w", channels: ["room"], timeoutSeconds: 300)
        _ = try hub.heartbeat(PresenceUpdate(uuid: "v", channels: ["other"], timeoutSeconds: 20))
        wall.advance(seconds: 19)
        let before = try hub.refresh(long, after: nil)
        wall.advance(seconds: 1)
        let unchanged = try hub.refresh(long, after: before.receipt)
        XCTAssertEqual(unchanged.receipt.refreshedAt, before.receipt.refreshedAt, "skipped: nobody left")
        XCTAssertEqual(hub.sweepPresence().counts.timedOut, 2, "v and u (both 20 s) timed out, w did not")
        XCTAssertEqual(hub.whereNow(uuid: "w"), ["room"])
        wall.advance(seconds: 1)
        let after = try hub.refresh(long, after: unchanged.receipt)
        XCTAssertEqual(after.receipt.refreshedAt, before.receipt.refreshedAt + 2_000_000_000)
        XCTAssertNotEqual(after.receipt.changes, before.receipt.changes)
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
        XCTAssertNotEqual(receipt?.changes, first.changes)
    }
}

private extension ChannelHub {
    /// A refresh after `receipt`, with the receipt it leaves for the next.
    func refresh(_ update: PresenceUpdate, after receipt: PresenceReceipt?) throws -> (receipt: PresenceReceipt, waiters: [any Waiter]) {
        var receipt = receipt
        let waiters = try refresh(update, receipt: &receipt)
        return (try XCTUnwrap(receipt), waiters)
    }
}
