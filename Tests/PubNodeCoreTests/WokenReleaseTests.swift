@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// `release(woken:)`: a waiter answered after one of the hub's wakes is left registered nowhere,
/// whether the wake already took it off everything (one channel) or only off the topic that woke
/// it (several topics).
final class WokenReleaseTests: XCTestCase {
    func testAWokenOneChannelWaiterIsRegisteredNowhereAndItsReleaseTouchesNothing() {
        let hub = Fixture.hub()
        let room = Fixture.subscription(["room"])
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken()))
        XCTAssertTrue(hub.publish(Fixture.draft("room")).waiters.includes(waiter), "the publish takes it")
        XCTAssertEqual(hub.waiterCount(on: "room"), 0, "taken off its one channel by the wake")

        // The release relies on that and looks nothing up: a registration made since (which the
        // transport never makes before its release) is left as it is, where a cancel removes it.
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken()))
        hub.release(woken: waiter, on: room)
        XCTAssertEqual(hub.waiterCount(on: "room"), 1, "a one-channel release looks nothing up")
        hub.cancel(waiter, on: room)
        XCTAssertEqual(hub.waiterCount(on: "room"), 0)
    }

    func testAWokenWaiterOfSeveralChannelsLeavesTheOthers() {
        let hub = Fixture.hub()
        let both = Fixture.subscription(["a", "b"])
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: both, after: hub.currentTimetoken()))
        XCTAssertTrue(hub.publish(Fixture.draft("a")).waiters.includes(waiter))
        XCTAssertEqual(hub.waiterCount(on: "b"), 1, "the wake took it off `a` only")
        hub.release(woken: waiter, on: both)
        XCTAssertEqual(hub.waiterCount(on: "b"), 0, "released from `b` too")
        XCTAssertFalse(hub.publish(Fixture.draft("b")).waiters.includes(waiter), "so `b` no longer wakes it")
    }

    func testAWokenWaiterOfAGroupAndAChannelLeavesTheChannel() throws {
        let hub = Fixture.hub()
        try hub.addChannels(["member"], toGroup: "g")
        let mixed = Fixture.subscription(["direct"], groups: ["g"])
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: mixed, after: hub.currentTimetoken()))
        XCTAssertTrue(hub.publish(Fixture.draft("member")).waiters.includes(waiter), "woken through its group")
        XCTAssertEqual(hub.waiterCount(on: "direct"), 1)
        hub.release(woken: waiter, on: mixed)
        XCTAssertEqual(hub.waiterCount(on: "direct"), 0)
        XCTAssertFalse(hub.publish(Fixture.draft("direct")).waiters.includes(waiter))
    }

    func testTheNodesLongPollReleasesThroughItsBroker() throws {
        let node = Node(keysets: [.demo])
        let hub = try XCTUnwrap((node.broker as? MemoryBroker)?.hub("demo"))
        func poll(_ channels: [String]) throws -> LongPoll {
            let request = SubscribeRequest(subscribeKey: "demo", channels: channels, cursor: hub.currentTimetoken())
            guard case .poll(let poll) = try node.subscribe(request) else { return try XCTUnwrap(nil, "a long-poll") }
            return poll
        }
        // One channel: the memory broker's skip (a registration made since stays; see above).
        let one = try poll(["solo"])
        let single = TestWaiter()
        XCTAssertNil(one.park(single))
        one.release(woken: single)
        XCTAssertEqual(hub.waiterCount(on: "solo"), 1, "released as woken, not cancelled")
        one.cancel(single)

        // Two channels: woken on one, released from both.
        let both = try poll(["a", "b"])
        let waiter = TestWaiter()
        XCTAssertNil(both.park(waiter))
        XCTAssertTrue(hub.publish(Fixture.draft("a")).waiters.includes(waiter))
        both.release(woken: waiter)
        XCTAssertEqual(hub.waiterCount(on: "a") + hub.waiterCount(on: "b"), 0, "registered nowhere")
    }
}
