@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

final class SweepTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000
    private let wall = ManualClock()

    private func hub(idle: Int = 60, retention: Int = 3600) -> ChannelHub {
        var limits = Limits()
        limits.idleChannelSeconds = idle
        limits.bufferRetentionSeconds = retention
        return ChannelHub(subscribeKey: "demo", limits: limits, clock: TimetokenClock(wall: wall))
    }

    /// Leaves an empty, unsubscribed channel behind: a waiter parks on it, then goes away.
    private func touch(_ channel: String, on hub: ChannelHub) {
        let waiter = TestWaiter()
        let subscription = Fixture.subscription([channel])
        XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
        hub.cancel(waiter, on: subscription)
    }

    func testIdleEmptyChannelIsReclaimedOnlyAfterIdleChannelSeconds() {
        let hub = hub(idle: 60)
        touch("quiet", on: hub)
        XCTAssertEqual(hub.channelCount, 1)

        XCTAssertEqual(hub.sweep().reclaimedChannels, 0)
        wall.advance(nanoseconds: 60 * second - 1)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 0)
        XCTAssertEqual(hub.channelCount, 1)

        wall.advance(nanoseconds: 1)
        let report = hub.sweep()
        XCTAssertEqual(report.reclaimedChannels, 1)
        XCTAssertEqual(report.expiredMessages, 0)
        XCTAssertEqual(hub.channelCount, 0)
    }

    func testActivityRestartsTheIdleTimer() {
        let hub = hub(idle: 60)
        touch("quiet", on: hub)
        wall.advance(seconds: 50)
        touch("quiet", on: hub)
        wall.advance(seconds: 50)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 0, "parked 50 s ago: not idle long enough")
        wall.advance(seconds: 10)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 1)
    }

    func testAPollAnsweredAtOnceCountsAsActivity() {
        let hub = hub(idle: 60, retention: 100)
        let subscription = Fixture.subscription(["read"])
        let cursor = hub.currentTimetoken()
        hub.publish(Fixture.draft("read"))
        wall.advance(seconds: 95)
        XCTAssertNotNil(hub.park(TestWaiter(), on: subscription, after: cursor), "the message is there: answered at once")
        XCTAssertEqual(hub.waiterCount(on: "read"), 0, "an answered poll stays unregistered")
        wall.advance(seconds: 10)
        let report = hub.sweep()
        XCTAssertEqual(report.expiredMessages, 1)
        XCTAssertEqual(report.reclaimedChannels, 0, "read 10 s ago: not idle long enough")
        wall.advance(seconds: 50)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 1)
    }

    func testChannelWithAParkedWaiterIsKept() {
        let hub = hub(idle: 60)
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(["busy"])
        XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
        wall.advance(seconds: 86_400)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 0)
        XCTAssertEqual(hub.channelCount, 1)
        XCTAssertTrue(hub.publish(Fixture.draft("busy")).waiters.includes(waiter), "the waiter survived the sweep")
    }

    func testChannelWithBufferedMessagesIsKept() {
        let hub = hub(idle: 60, retention: 3600)
        let sent = hub.publish(Fixture.draft("kept", "\"m\""))
        wall.advance(seconds: 600)
        let report = hub.sweep()
        XCTAssertEqual(report.reclaimedChannels, 0)
        XCTAssertEqual(report.expiredMessages, 0)
        XCTAssertEqual(hub.channelCount, 1)
        XCTAssertEqual(hub.collect(Fixture.subscription(["kept"]), after: .zero).deliveries.timetokens, [sent.message.timetoken])
    }

    func testChannelInAGroupIsKeptUntilItLeavesTheGroup() throws {
        let hub = hub(idle: 60)
        try hub.addChannels(["member"], toGroup: "g")
        wall.advance(seconds: 86_400)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 0)
        XCTAssertEqual(hub.channelCount, 1)
        XCTAssertEqual(try hub.channels(inGroup: "g"), ["member"])

        try hub.removeChannels(["member"], fromGroup: "g")
        let report = hub.sweep()
        XCTAssertEqual(report.reclaimedChannels, 1)
        XCTAssertEqual(report.reclaimedTopics, 1, "the now empty group goes too")
        XCTAssertEqual(hub.channelCount, 0)
    }

    func testGroupMembershipStillWorksAfterSweeps() throws {
        let hub = hub(idle: 60)
        try hub.addChannels(["member"], toGroup: "g")
        wall.advance(seconds: 86_400)
        _ = hub.sweep()
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: Fixture.subscription(groups: ["g"]), after: hub.currentTimetoken()))
        XCTAssertTrue(hub.publish(Fixture.draft("member")).waiters.includes(waiter))
    }

    func testBufferRetentionExpiresOldMessages() {
        let hub = hub(idle: 60, retention: 3600)
        let subscription = Fixture.subscription(["log"])
        _ = hub.publish(Fixture.draft("log", "\"old\""))
        wall.advance(seconds: 1000)
        let newer = hub.publish(Fixture.draft("log", "\"new\""))

        wall.advance(seconds: 2600)  // exactly the retention after the first message: still kept
        XCTAssertEqual(hub.sweep().expiredMessages, 0)
        XCTAssertEqual(hub.collect(subscription, after: .zero).deliveries.payloads, ["\"old\"", "\"new\""])

        wall.advance(nanoseconds: 1)
        let report = hub.sweep()
        XCTAssertEqual(report.expiredMessages, 1)
        XCTAssertEqual(report.reclaimedChannels, 0)
        XCTAssertEqual(hub.collect(subscription, after: .zero).deliveries.timetokens, [newer.message.timetoken])

        wall.advance(seconds: 1000)
        let last = hub.sweep()
        XCTAssertEqual(last.expiredMessages, 1)
        XCTAssertEqual(last.reclaimedChannels, 1, "emptied and idle long enough: reclaimed in the same sweep")
        XCTAssertEqual(hub.channelCount, 0)
    }

    func testZeroRetentionKeepsMessagesUntilPushedOut() {
        let hub = hub(idle: 60, retention: 0)
        _ = hub.publish(Fixture.draft("forever"))
        wall.advance(seconds: 10 * 365 * 86_400)
        let report = hub.sweep()
        XCTAssertEqual(report.expiredMessages, 0)
        XCTAssertEqual(report.reclaimedChannels, 0)
        XCTAssertEqual(hub.collect(Fixture.subscription(["forever"]), after: .zero).deliveries.count, 1)
    }

    func testEmptyGroupAndWildcardTopicsAreReclaimed() {
        let hub = hub(idle: 60)
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(["w.*"], groups: ["g"])
        XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
        XCTAssertEqual(hub.sweep().reclaimedTopics, 0, "topics with a parked waiter stay")
        hub.cancel(waiter, on: subscription)
        XCTAssertEqual(hub.sweep().reclaimedTopics, 2)
        XCTAssertEqual(hub.sweep().reclaimedTopics, 0)
    }

    func testPublishingToAReclaimedChannelWorks() {
        let hub = hub(idle: 60)
        let subscription = Fixture.subscription(["again"])
        touch("again", on: hub)
        wall.advance(seconds: 61)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 1)

        let cursor = hub.currentTimetoken()
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: cursor))
        let sent = hub.publish(Fixture.draft("again", "\"back\""))
        XCTAssertTrue(sent.waiters.includes(waiter))
        XCTAssertEqual(hub.collect(subscription, after: cursor).deliveries.payloads, ["\"back\""])
        XCTAssertEqual(hub.channelCount, 1)
    }

    func testWildcardSubscriberCatchesUpOnAReclaimedChannel() {
        let hub = hub(idle: 60, retention: 60)
        let subscription = Fixture.subscription(["a.*"])
        _ = hub.publish(Fixture.draft("a.b", "\"first\""))
        wall.advance(seconds: 120)
        let report = hub.sweep()
        XCTAssertEqual(report.expiredMessages, 1)
        XCTAssertEqual(report.reclaimedChannels, 1)
        XCTAssertEqual(report.reclaimedTopics, 1, "the wildcard prefix lost its only member")

        let cursor = hub.currentTimetoken()
        XCTAssertTrue(hub.collect(subscription, after: .zero).deliveries.isEmpty)
        _ = hub.publish(Fixture.draft("a.b", "\"second\""))
        let result = hub.collect(subscription, after: cursor)
        XCTAssertEqual(result.deliveries.payloads, ["\"second\""])
        XCTAssertEqual(result.deliveries.first?.match, "a.*")
    }

    func testParkedWildcardWaiterIsWokenByAReclaimedChannelComingBack() {
        let hub = hub(idle: 60, retention: 60)
        let subscription = Fixture.subscription(["a.*"])
        _ = hub.publish(Fixture.draft("a.b", "\"first\""))
        wall.advance(seconds: 120)
        let cursor = hub.currentTimetoken()
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: cursor))
        let report = hub.sweep()
        XCTAssertEqual(report.reclaimedChannels, 1)
        XCTAssertEqual(report.reclaimedTopics, 0, "the prefix keeps its parked waiter")

        let sent = hub.publish(Fixture.draft("a.b", "\"second\""))
        XCTAssertTrue(sent.waiters.includes(waiter))
        let result = hub.collect(subscription, after: cursor)
        XCTAssertEqual(result.deliveries.payloads, ["\"second\""])
        XCTAssertEqual(result.deliveries.first?.match, "a.*")
    }

    func testWallClockSteppingBackDoesNotReclaimOrExpire() {
        let hub = hub(idle: 60, retention: 60)
        _ = hub.publish(Fixture.draft("m"))
        touch("quiet", on: hub)
        wall.rewind(nanoseconds: 3600 * second)
        let report = hub.sweep()
        XCTAssertEqual(report.expiredMessages, 0)
        XCTAssertEqual(report.reclaimedChannels, 0)
        XCTAssertEqual(hub.channelCount, 2)
    }
}
