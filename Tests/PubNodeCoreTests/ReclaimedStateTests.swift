@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A channel state the sweeper reclaimed says so without its lock, is never parked on again, and
/// a long-poll keeping it moves to the live state.
final class ReclaimedStateTests: XCTestCase {
    /// A hub whose "room" state, kept here, the sweeper has reclaimed.
    private func reclaimedRoom() throws -> (hub: ChannelHub, room: Subscription, kept: ChannelState) {
        let wall = ManualClock()
        var limits = Limits()
        limits.idleChannelSeconds = 60
        let hub = Fixture.hub(limits: limits, clock: wall)
        let room = Fixture.subscription(["room"])
        let kept = try XCTUnwrap(hub.state(of: room))
        XCTAssertFalse(kept.isReclaimed)
        wall.advance(seconds: 61)
        XCTAssertEqual(hub.sweep().reclaimedChannels, 1)
        return (hub, room, kept)
    }

    func testAReclaimedStateSaysSoAndGivesBackItsTable() throws {
        let (hub, room, kept) = try reclaimedRoom()
        XCTAssertTrue(kept.isReclaimed)
        XCTAssertEqual(kept.inner.withLock { $0.waiters.capacity }, 0)
        XCTAssertFalse(try XCTUnwrap(hub.state(of: room)) === kept, "the channel's next state is another")
    }

    /// A kept state the sweeper reclaimed is not parked on (no publish would reach it): the
    /// channel is looked up again, and the live state created then is where the waiter waits.
    func testAReclaimedKeptStateParksOnTheLiveChannel() throws {
        let (hub, room, kept) = try reclaimedRoom()
        let cursor = hub.currentTimetoken()
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: cursor, kept: kept))
        XCTAssertEqual(hub.waiterCount(on: "room"), 1, "registered on the channel now served")
        XCTAssertTrue(hub.publish(Fixture.draft("room")).waiters.includes(waiter))
        XCTAssertEqual(hub.park(TestWaiter(), on: room, after: cursor, kept: kept)?.deliveries.count, 1,
                       "a park through the reclaimed state reads the live channel")
    }

    /// Cancelling through a reclaimed kept state reaches the live channel, where the waiter waits.
    func testAReclaimedKeptStateCancelsOnTheLiveChannel() throws {
        let (hub, room, kept) = try reclaimedRoom()
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken(), kept: kept))
        XCTAssertEqual(hub.waiterCount(on: "room"), 1)
        hub.cancel(waiter, on: room, kept: kept)
        XCTAssertEqual(hub.waiterCount(on: "room"), 0, "unregistered from the channel now served")
        XCTAssertFalse(hub.publish(Fixture.draft("room")).waiters.includes(waiter))
    }

    func testARepeatedPollWhoseChannelStateWasReclaimedStartsANewLongPoll() throws {
        let wall = ManualClock()
        var limits = Limits()
        limits.idleChannelSeconds = 60
        let node = Node(limits: limits, clock: TimetokenClock(wall: wall))
        let prepared = try node.prepare(SubscribeRequest(subscribeKey: "demo", channels: ["room"]))
        var receipt: PresenceReceipt?
        let cursor = node.time()
        guard case .poll(let first) = try node.subscribe(prepared, cursor: cursor, presence: &receipt) else {
            return XCTFail("expected a long-poll")
        }
        XCTAssertNil(try node.subscribe(prepared, cursor: cursor, presence: &receipt, repeating: first))
        wall.advance(seconds: 61)
        XCTAssertEqual(node.sweepChannels().reclaimedChannels, 1)
        guard case .poll(let next) = try node.subscribe(prepared, cursor: cursor, presence: &receipt, repeating: first)
        else { return XCTFail("a new long-poll on the live channel state was expected") }
        XCTAssertFalse(try XCTUnwrap(next.channel).isReclaimed)
        XCTAssertNil(try node.subscribe(prepared, cursor: cursor, presence: &receipt, repeating: next), "and it serves again")
    }

    /// A publisher's kept state is published through while it lives; once reclaimed, the message
    /// goes to the live channel, whose waiters it wakes and whose readers find it, and the live
    /// state is what is kept next.
    func testAPublishThroughAReclaimedKeptStateReachesTheLiveChannel() throws {
        let (hub, room, reclaimed) = try reclaimedRoom()
        let waiter = TestWaiter()
        let cursor = hub.currentTimetoken()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: cursor))
        var kept: ChannelState? = reclaimed
        XCTAssertTrue(hub.publish(Fixture.draft("room"), keeping: &kept).waiters.includes(waiter))
        let live = try XCTUnwrap(hub.state(of: room))
        XCTAssertTrue(kept === live, "the live state is kept from now on")
        XCTAssertEqual(hub.collect(room, after: cursor).deliveries.count, 1)
        XCTAssertEqual(hub.publish(Fixture.draft("room"), keeping: &kept).message.channel, "room")
        XCTAssertTrue(kept === live)
        XCTAssertEqual(hub.collect(room, after: cursor).deliveries.count, 2, "published through the kept state")
    }

    /// A kept state of another channel is not published through: the message goes to its own
    /// channel, and that channel's state is kept instead.
    func testAPublishKeepsNoOtherChannelsState() throws {
        let hub = Fixture.hub()
        var kept = hub.state(of: Fixture.subscription(["other"]))
        let cursor = hub.currentTimetoken()
        _ = hub.publish(Fixture.draft("room"), keeping: &kept)
        XCTAssertEqual(kept?.name, "room")
        XCTAssertEqual(hub.collect(Fixture.subscription(["room"]), after: cursor).deliveries.count, 1)
        XCTAssertEqual(hub.collect(Fixture.subscription(["other"]), after: cursor).deliveries.count, 0)
    }

    /// A state of another hub's channel of the same name (another keyset's) is neither published
    /// through nor parked or cancelled on: each hub uses only states of its own.
    func testAnotherHubsStateIsNeverUsed() throws {
        let (one, two) = (Fixture.hub(), Fixture.hub())
        let room = Fixture.subscription(["room"])
        let foreign = try XCTUnwrap(one.state(of: room))
        let cursor = two.currentTimetoken()
        var kept: ChannelState? = foreign
        _ = two.publish(Fixture.draft("room"), keeping: &kept)
        XCTAssertTrue(kept === two.state(of: room), "the hub's own state is kept instead")
        XCTAssertEqual(one.collect(room, after: cursor).deliveries.count, 0, "nothing reached the other hub")
        XCTAssertEqual(two.collect(room, after: cursor).deliveries.count, 1)
        let waiter = TestWaiter()
        XCTAssertFalse(two.parkUnlessReady(waiter, on: room, after: two.currentTimetoken(), kept: foreign))
        XCTAssertEqual(one.waiterCount(on: "room"), 0)
        XCTAssertEqual(two.waiterCount(on: "room"), 1, "parked on the hub's own channel")
        two.cancel(waiter, on: room, kept: foreign)
        XCTAssertEqual(two.waiterCount(on: "room"), 0, "and cancelled there")
    }

    /// A prepared publish lets go of a state the sweeper reclaimed and keeps the live one its next
    /// publish goes to, where a reader finds the message.
    func testAPreparedPublishMovesToTheLiveStateAfterASweep() throws {
        let wall = ManualClock()
        var limits = Limits()
        limits.idleChannelSeconds = 60
        limits.bufferRetentionSeconds = 10
        let node = Node(limits: limits, clock: TimetokenClock(wall: wall))
        let prepared = try node.prepare(PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: "room",
                                                       payload: Array("0".utf8)))
        guard case .done = try node.begin(prepared, payload: Array("1".utf8)) else { return XCTFail("not accepted") }
        let first = try XCTUnwrap(prepared.served?.channel)
        wall.advance(seconds: 61)
        XCTAssertEqual(node.sweepChannels().reclaimedChannels, 1)
        let broker = try XCTUnwrap(node.broker.keyset("demo"))
        XCTAssertNil(prepared.served?.channel, "a reclaimed state is let go of")
        let cursor = node.time()
        guard case .done = try node.begin(prepared, payload: Array("2".utf8)) else { return XCTFail("not accepted") }
        let live = try XCTUnwrap(broker.channelState(for: Fixture.subscription(["room"])))
        XCTAssertFalse(live === first)
        XCTAssertTrue(prepared.served?.channel === live)
        XCTAssertEqual(broker.read(Fixture.subscription(["room"]), after: cursor).deliveries
            .map { String(decoding: $0.message.payload, as: UTF8.self) }, ["2"])
    }
}
