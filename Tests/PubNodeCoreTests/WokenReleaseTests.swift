@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// `release(woken:)`: a waiter answered after one of the hub's wakes is left registered nowhere,
/// whether the wake already took it off everything (one channel) or only off the topic that woke
/// it (several topics).
final class WokenReleaseTests: XCTestCase {
    func testAWokenOneChannelWaiterIsRegisteredNowhereAndParksAgainOnce() {
        let hub = Fixture.hub()
        let room = Fixture.subscription(["room"])
        let waiter = TestWaiter()
        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken()))
        XCTAssertTrue(hub.publish(Fixture.draft("room")).waiters.includes(waiter), "the publish takes it")
        XCTAssertEqual(hub.waiterCount(on: "room"), 0, "taken off its one channel by the wake")
        hub.release(woken: waiter, on: room)
        XCTAssertEqual(hub.waiterCount(on: "room"), 0)

        XCTAssertFalse(hub.parkUnlessReady(waiter, on: room, after: hub.currentTimetoken()))
        XCTAssertEqual(hub.waiterCount(on: "room"), 1, "parked again, once")
        XCTAssertEqual(hub.publish(Fixture.draft("room")).waiters.filter { $0 === waiter }.count, 1,
                       "and woken once")
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
        let request = SubscribeRequest(subscribeKey: "demo", channels: ["a", "b"], cursor: hub.currentTimetoken())
        guard case .poll(let poll) = try node.subscribe(request) else { return XCTFail("a long-poll") }
        let waiter = TestWaiter()
        XCTAssertNil(poll.park(waiter))
        XCTAssertTrue(hub.publish(Fixture.draft("a")).waiters.includes(waiter))
        poll.release(woken: waiter)
        XCTAssertEqual(hub.waiterCount(on: "a") + hub.waiterCount(on: "b"), 0, "registered nowhere")
    }
}
