@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A subscribe from a cursor given beside the request (a transport's kept request), and a
/// long-poll read from a cursor other than the client's (a filter moved past a batch).
final class NodeSubscribeCursorTests: NodeTestCase {
    func testTheGivenCursorReplacesTheRequestsOwn() throws {
        let node = node()
        let first = try node.publishNow(request("room", "1")).timetoken
        let second = try node.publishNow(request("room", "2")).timetoken
        let kept = SubscribeRequest(subscribeKey: "demo", channels: ["room"], cursor: .zero)

        var receipt: PresenceReceipt?
        guard case .poll(let poll) = try node.subscribe(node.prepare(kept), cursor: first, presence: &receipt) else {
            return XCTFail("expected a long-poll")
        }
        XCTAssertEqual(poll.cursor, first)
        XCTAssertEqual(poll.read().deliveries.map(\.message.timetoken), [second])

        var later = kept
        later.cursor = second
        var laterReceipt: PresenceReceipt?
        guard case .handshake = try node.subscribe(node.prepare(later), cursor: .zero, presence: &laterReceipt) else {
            return XCTFail("a zero cursor is a handshake, whatever the request held")
        }
    }

    func testALongPollReadsAndParksAfterTheCursorItIsGiven() throws {
        let node = node()
        let start = try node.publishNow(request("room", "1")).timetoken
        let moved = try node.publishNow(request("room", "2")).timetoken
        guard case .poll(let poll) = try node.subscribe(SubscribeRequest(subscribeKey: "demo", channels: ["room"],
                                                                         cursor: start)) else {
            return XCTFail("expected a long-poll")
        }
        XCTAssertEqual(poll.read().deliveries.count, 1, "from the client's cursor")
        XCTAssertTrue(poll.read(after: moved).deliveries.isEmpty, "from a later one")
        XCTAssertEqual(poll.read(after: moved).next, moved)

        let waiter = TestWaiter()
        XCTAssertNil(poll.park(waiter, after: moved), "nothing after the moved cursor: parked")
        let third = try node.publishNow(request("room", "3")).timetoken
        XCTAssertEqual(waiter.wakeCount, 1)
        XCTAssertEqual(poll.read(after: moved).deliveries.map(\.message.timetoken), [third])
        XCTAssertEqual(try XCTUnwrap(poll.park(TestWaiter())).deliveries.count, 2, "the client's cursor is unchanged")
    }
}
