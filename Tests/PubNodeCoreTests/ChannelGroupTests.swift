@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

final class ChannelGroupTests: XCTestCase {
    private let wall = ManualClock()

    private func hub(maxChannelsPerGroup: Int = 2000) -> ChannelHub {
        var limits = Limits()
        limits.maxChannelsPerGroup = maxChannelsPerGroup
        return ChannelHub(subscribeKey: "demo", limits: limits, clock: TimetokenClock(wall: wall))
    }

    func testAddListRemoveDelete() throws {
        let hub = hub()
        try hub.addChannels(["b", "a", "c"], toGroup: "g")
        XCTAssertEqual(try hub.channels(inGroup: "g"), ["a", "b", "c"])
        try hub.addChannels(["a", "d"], toGroup: "g")
        XCTAssertEqual(try hub.channels(inGroup: "g"), ["a", "b", "c", "d"])
        try hub.removeChannels(["b", "not-a-member"], fromGroup: "g")
        XCTAssertEqual(try hub.channels(inGroup: "g"), ["a", "c", "d"])
        XCTAssertEqual(hub.groupNames(), ["g"])
        try hub.deleteGroup("g")
        XCTAssertEqual(try hub.channels(inGroup: "g"), [])
        XCTAssertEqual(hub.groupNames(), [])
    }

    func testUnknownGroupListsNothingAndRemovingFromItIsHarmless() throws {
        let hub = hub()
        XCTAssertEqual(try hub.channels(inGroup: "nobody"), [])
        try hub.removeChannels(["a"], fromGroup: "nobody")
        try hub.deleteGroup("nobody")
        XCTAssertEqual(hub.groupNames(), [])
    }

    func testGroupNamesAreSortedAndOnlyThoseWithChannels() throws {
        let hub = hub()
        try hub.addChannels(["x"], toGroup: "zeta")
        try hub.addChannels(["y"], toGroup: "alpha")
        try hub.addChannels(["z"], toGroup: "mid")
        XCTAssertNil(hub.park(TestWaiter(), on: Fixture.subscription(groups: ["parked-only"]), after: hub.currentTimetoken()))
        try hub.addChannels([], toGroup: "empty")
        XCTAssertEqual(hub.groupNames(), ["alpha", "mid", "zeta"])
        try hub.removeChannels(["z"], fromGroup: "mid")
        XCTAssertEqual(hub.groupNames(), ["alpha", "zeta"])
    }

    func testMaxChannelsPerGroupIsEnforced() throws {
        let hub = hub(maxChannelsPerGroup: 3)
        try hub.addChannels(["a", "b"], toGroup: "g")
        try hub.addChannels(["c"], toGroup: "g")
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["d"], toGroup: "g") }, .groupFull(limit: 3))
        XCTAssertEqual(try hub.channels(inGroup: "g"), ["a", "b", "c"])
        // Re-adding members does not grow the group.
        XCTAssertNoThrow(try hub.addChannels(["a", "b", "c", "a"], toGroup: "g"))
        // A batch that would overflow is refused whole.
        try hub.removeChannels(["c"], fromGroup: "g")
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["x", "y"], toGroup: "g") }, .groupFull(limit: 3))
        XCTAssertEqual(try hub.channels(inGroup: "g"), ["a", "b"])
        // Other groups have their own budget.
        XCTAssertNoThrow(try hub.addChannels(["x", "y", "z"], toGroup: "other"))
    }

    func testARefusedBatchDoesNotMakeItsChannelsWakeTheGroup() throws {
        let hub = hub(maxChannelsPerGroup: 1)
        try hub.addChannels(["a"], toGroup: "g")
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["b"], toGroup: "g") }, .groupFull(limit: 1))
        let waiter = TestWaiter()
        let cursor = hub.currentTimetoken()
        XCTAssertNil(hub.park(waiter, on: Fixture.subscription(groups: ["g"]), after: cursor))
        XCTAssertFalse(hub.publish(Fixture.draft("b")).waiters.includes(waiter))
        XCTAssertTrue(hub.collect(Fixture.subscription(groups: ["g"]), after: cursor).deliveries.isEmpty)
    }

    func testAddingAChannelToAParkedGroupMakesItsPublishesWakeTheWaiter() throws {
        let hub = hub()
        let subscription = Fixture.subscription(groups: ["g"])
        let cursor = hub.currentTimetoken()
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: cursor))
        XCTAssertFalse(hub.publish(Fixture.draft("x", "\"before\"")).waiters.includes(waiter))

        try hub.addChannels(["x"], toGroup: "g")
        let outcome = hub.publish(Fixture.draft("x", "\"after\""))
        XCTAssertTrue(outcome.waiters.includes(waiter))
        let result = hub.collect(subscription, after: outcome.message.timetoken.advanced(by: -1))
        XCTAssertEqual(result.deliveries.payloads, ["\"after\""])
        XCTAssertEqual(result.deliveries.first?.match, "g")
    }

    func testRemovingAChannelStopsItsPublishesWakingTheGroup() throws {
        let hub = hub()
        try hub.addChannels(["x", "y"], toGroup: "g")
        let subscription = Fixture.subscription(groups: ["g"])
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
        try hub.removeChannels(["x"], fromGroup: "g")
        let cursor = hub.currentTimetoken()
        XCTAssertFalse(hub.publish(Fixture.draft("x")).waiters.includes(waiter))
        XCTAssertTrue(hub.collect(subscription, after: cursor).deliveries.isEmpty)
        XCTAssertTrue(hub.publish(Fixture.draft("y")).waiters.includes(waiter))
        XCTAssertEqual(hub.collect(subscription, after: cursor).deliveries.channels, ["y"])
    }

    func testDeletingAGroupStopsAllWakes() throws {
        let hub = hub()
        try hub.addChannels(["x", "y"], toGroup: "g")
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(groups: ["g"])
        XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
        try hub.deleteGroup("g")
        let cursor = hub.currentTimetoken()
        XCTAssertFalse(hub.publish(Fixture.draft("x")).waiters.includes(waiter))
        XCTAssertFalse(hub.publish(Fixture.draft("y")).waiters.includes(waiter))
        XCTAssertTrue(hub.collect(subscription, after: cursor).deliveries.isEmpty)
        // The group can be rebuilt and is live again for the same parked waiter.
        try hub.addChannels(["y"], toGroup: "g")
        XCTAssertTrue(hub.publish(Fixture.draft("y")).waiters.includes(waiter))
    }

    func testAChannelInTwoGroupsWakesBoth() throws {
        let hub = hub()
        try hub.addChannels(["x"], toGroup: "g1")
        try hub.addChannels(["x"], toGroup: "g2")
        let first = TestWaiter()
        let second = TestWaiter()
        XCTAssertNil(hub.park(first, on: Fixture.subscription(groups: ["g1"]), after: hub.currentTimetoken()))
        XCTAssertNil(hub.park(second, on: Fixture.subscription(groups: ["g2"]), after: hub.currentTimetoken()))
        let woken = hub.publish(Fixture.draft("x")).waiters
        XCTAssertTrue(woken.includes(first))
        XCTAssertTrue(woken.includes(second))
    }

    func testInvalidNamesThrowTheMatchingError() {
        let hub = hub()
        let long = String(repeating: "g", count: 2049)
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["a"], toGroup: "") }, .invalidGroup("", .empty))
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["a"], toGroup: "a:b") }, .invalidGroup("a:b", .forbiddenCharacter))
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["a,b"], toGroup: "g") }, .invalidChannel("a,b", .forbiddenCharacter))
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["a.*"], toGroup: "g") }, .invalidChannel("a.*", .forbiddenCharacter))
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels([""], toGroup: "g") }, .invalidChannel("", .empty))
        XCTAssertEqual(Fixture.pubNodeError { try hub.removeChannels(["a"], fromGroup: "bad/g") },
                       .invalidGroup("bad/g", .forbiddenCharacter))
        XCTAssertEqual(Fixture.pubNodeError { try hub.deleteGroup(long) }, .invalidGroup(long, .tooLong))
        XCTAssertEqual(Fixture.pubNodeError { _ = try hub.channels(inGroup: "") }, .invalidGroup("", .empty))
        XCTAssertEqual(Fixture.pubNodeError { _ = try hub.channels(inGroup: "g*") }, .invalidGroup("g*", .forbiddenCharacter))
    }

    func testABatchWithAnInvalidChannelChangesNothing() throws {
        let hub = hub()
        XCTAssertEqual(Fixture.pubNodeError { try hub.addChannels(["good", "bad\n"], toGroup: "g") },
                       .invalidChannel("bad\n", .forbiddenCharacter))
        XCTAssertEqual(try hub.channels(inGroup: "g"), [])
        XCTAssertEqual(hub.groupNames(), [])
    }
}

private extension Timetoken {
    func advanced(by delta: Int64) -> Timetoken { Timetoken(UInt64(Int64(rawValue) + delta)) }
}
