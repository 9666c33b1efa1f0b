@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// `parkUnlessReady`: a poll that will read later only asks whether anything is buffered after its
/// cursor, and otherwise parks exactly as `park` would.
final class ParkUnlessReadyTests: XCTestCase {
    func testAMessageAfterTheCursorLeavesTheWaiterUnregistered() {
        let hub = Fixture.hub()
        let cursor = hub.currentTimetoken()
        _ = hub.publish(Fixture.draft("room", "\"one\""))
        let waiter = TestWaiter()
        XCTAssertTrue(hub.parkUnlessReady(waiter, on: Fixture.subscription(["room"]), after: cursor))
        XCTAssertEqual(hub.waiterCount(on: "room"), 0, "ready: not registered")
        XCTAssertFalse(hub.publish(Fixture.draft("room")).waiters.includes(waiter), "so a later publish does not wake it")
        XCTAssertEqual(hub.collect(Fixture.subscription(["room"]), after: cursor).deliveries.count, 2,
                       "the read that follows finds what it was told about")
    }

    func testNothingAfterTheCursorParksTheWaiter() {
        let hub = Fixture.hub()
        let sent = hub.publish(Fixture.draft("room", "\"old\"")).message
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: Fixture.subscription(["room"]), after: sent.timetoken),
                       "the buffered message is not after the cursor")
        XCTAssertEqual(hub.waiterCount(on: "room"), 1)
        XCTAssertTrue(hub.publish(Fixture.draft("room")).waiters.includes(waiter), "a publish wakes it")
    }

    func testAnEmptyChannelParksTheWaiter() {
        let hub = Fixture.hub()
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: Fixture.subscription(["fresh"]), after: Timetoken(rawValue: 0)))
        XCTAssertTrue(hub.publish(Fixture.draft("fresh")).waiters.includes(waiter))
    }

    func testSeveralChannelsParkAndReadLikePark() {
        let hub = Fixture.hub()
        let cursor = hub.currentTimetoken()
        let both = Fixture.subscription(["a", "b"])
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: both, after: cursor))
        XCTAssertEqual(hub.waiterCount(on: "a") + hub.waiterCount(on: "b"), 2, "registered on both")
        hub.cancel(waiter, on: both)

        _ = hub.publish(Fixture.draft("b"))
        XCTAssertTrue(hub.parkUnlessReady(waiter, on: both, after: cursor))
        XCTAssertEqual(hub.waiterCount(on: "a") + hub.waiterCount(on: "b"), 0, "ready on one: registered on neither")
    }

    func testAskingCountsAsTheChannelsActivity() {
        let wall = ManualClock()
        var limits = Limits()
        limits.idleChannelSeconds = 60
        limits.bufferRetentionSeconds = 100
        let hub = Fixture.hub(limits: limits, clock: wall)
        let cursor = hub.currentTimetoken()
        _ = hub.publish(Fixture.draft("read"))
        wall.advance(seconds: 95)
        XCTAssertTrue(hub.parkUnlessReady(TestWaiter(), on: Fixture.subscription(["read"]), after: cursor))
        wall.advance(seconds: 10)
        let report = hub.sweep()
        XCTAssertEqual(report.expiredMessages, 1)
        XCTAssertEqual(report.reclaimedChannels, 0, "asked 10 s ago: not idle long enough")
    }

    func testAKeptChannelStateParksWithoutALookupAndAPublishWakesIt() throws {
        let hub = Fixture.hub()
        let room = Fixture.subscription(["room"])
        let kept = try XCTUnwrap(hub.state(of: room))
        XCTAssertNil(hub.state(of: Fixture.subscription(["a", "b"])), "several topics keep no state")
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken(), kept: kept))
        XCTAssertEqual(hub.waiterCount(on: "room"), 1)
        XCTAssertTrue(hub.publish(Fixture.draft("room")).waiters.includes(waiter))
        XCTAssertNil(hub.park(waiter, on: room, after: hub.currentTimetoken(), kept: kept))
        XCTAssertTrue(hub.publish(Fixture.draft("room")).waiters.includes(waiter), "park through it too")
    }

    /// Parking through a kept state that finds messages answers them with its channel's gap, named
    /// by the state (a repeated poll reads nothing of its subscription there).
    func testAKeptStateFindsItsMessagesAndNamesItsGap() throws {
        var limits = Limits()
        limits.bufferSize = 2
        let hub = Fixture.hub(limits: limits)
        let room = Fixture.subscription(["room"], limits: limits)
        let kept = try XCTUnwrap(hub.state(of: room))
        let cursor = hub.currentTimetoken()
        let sent = (1...3).map { _ in hub.publish(Fixture.draft("room")).message.timetoken }
        let waiter = TestWaiter()
        let batch = try XCTUnwrap(hub.park(waiter, on: room, after: cursor, kept: kept))
        XCTAssertEqual(batch.deliveries.map(\.message.timetoken), Array(sent.dropFirst()))
        XCTAssertEqual(batch.gaps, [ChannelGap(channel: "room", through: sent[0])])
        XCTAssertEqual(hub.waiterCount(on: "room"), 0, "found messages: not registered")
        XCTAssertTrue(hub.parkUnlessReady(waiter, on: room, after: cursor, kept: kept))
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: sent[2], kept: kept))
        XCTAssertEqual(hub.waiterCount(on: "room"), 1)
    }

    /// Parking through a live kept state does not look the channel up: with the state taken out of
    /// the map (as a lookup would then make another), the waiter still lands on the kept one.
    func testALiveKeptStateIsParkedOnWithoutLookingTheChannelUp() throws {
        let hub = Fixture.hub()
        let room = Fixture.subscription(["room"])
        let kept = try XCTUnwrap(hub.state(of: room))
        XCTAssertTrue(hub.channels.remove("room", if: { $0 === kept }))
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken(), kept: kept))
        XCTAssertEqual(kept.inner.withLock { $0.waiters.count }, 1, "registered on the kept state")
        XCTAssertEqual(hub.channelCount, 0, "no state looked up or made by name")
        XCTAssertNil(hub.park(TestWaiter(), on: room, after: hub.currentTimetoken(), kept: kept))
        XCTAssertEqual(kept.inner.withLock { $0.waiters.count }, 2)
        XCTAssertEqual(hub.channelCount, 0)
    }

    /// Cancelling through a live kept state does not look the channel up either: with the state
    /// out of the map (a lookup by name finds nothing there), the waiter still leaves the kept one.
    func testALiveKeptStateIsCancelledFromWithoutLookingTheChannelUp() throws {
        let hub = Fixture.hub()
        let room = Fixture.subscription(["room"])
        let kept = try XCTUnwrap(hub.state(of: room))
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken(), kept: kept))
        XCTAssertTrue(hub.channels.remove("room", if: { $0 === kept }))
        hub.cancel(waiter, on: room, kept: kept)
        XCTAssertEqual(kept.inner.withLock { $0.waiters.count }, 0, "unregistered from the kept state")
    }

    /// A long-poll cancels through the state it keeps: its waiter leaves that state even when the
    /// channel's name no longer leads there.
    func testALongPollCancelsThroughItsKeptState() throws {
        let hubs = MemoryHubs(limits: Limits(), clock: TimetokenClock(wall: ManualClock()))
        let node = Node(keysets: [.demo], limits: Limits(), broker: MemoryBroker(hubs: hubs),
                        presence: MemoryPresence(hubs: hubs), clock: TimetokenClock(wall: ManualClock()))
        let prepared = try node.prepare(SubscribeRequest(subscribeKey: "demo", channels: ["room"]))
        var receipt: PresenceReceipt?
        guard case .poll(let poll) = try node.subscribe(prepared, cursor: node.time(), presence: &receipt) else {
            return XCTFail("expected a long-poll")
        }
        let kept = try XCTUnwrap(poll.channel)
        let waiter = TestWaiter()
        XCTAssertNil(poll.park(waiter))
        let hub = try XCTUnwrap(hubs.hub("demo"))
        XCTAssertTrue(hub.channels.remove("room", if: { $0 === kept }))
        poll.cancel(waiter)
        XCTAssertEqual(kept.inner.withLock { $0.waiters.count }, 0)
    }

    func testTheMemoryBrokerAnswersFromItsHub() {
        let broker = MemoryBroker(hubs: MemoryHubs(limits: Limits(), clock: TimetokenClock(wall: ManualClock())))
        let keyset = broker.open(.demo)
        let cursor = Timetoken(rawValue: 0)
        let waiter = TestWaiter()
        XCTAssertFalse(keyset.parkUnlessReady(waiter, on: Fixture.subscription(["room"]), after: cursor))
        _ = keyset.publish(Fixture.draft("room"))
        XCTAssertEqual(waiter.wakeCount, 1, "parked, then woken by the publish")
        XCTAssertTrue(keyset.parkUnlessReady(TestWaiter(), on: Fixture.subscription(["room"]), after: cursor))
    }
}
