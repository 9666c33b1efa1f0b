@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A broker without a `release(woken:on:kept:)` of its own (a cluster's: its polls may be woken
/// from outside the hub) cancels a woken poll with the default, which goes through the kept
/// channel state as `cancel` does: no lookup by name.
final class DefaultReleaseTests: XCTestCase {
    func testTheDefaultReleaseCancelsThroughTheKeptState() throws {
        let hubs = MemoryHubs(limits: Limits(), clock: TimetokenClock(wall: ManualClock()))
        let keyset: any KeysetBroker = Forwarding(inner: MemoryBroker(hubs: hubs).open(.demo))
        let room = Fixture.subscription(["room"])
        let kept = try XCTUnwrap(keyset.channelState(for: room))
        let waiter = TestWaiter()
        XCTAssertFalse(keyset.parkUnlessReady(waiter, on: room, after: Timetoken(rawValue: 1), kept: kept))
        // Out of the map: a lookup by name no longer leads to the state holding the waiter.
        XCTAssertTrue(try XCTUnwrap(hubs.hub("demo")).channels.remove("room", if: { $0 === kept }))
        keyset.release(woken: waiter, on: room, kept: kept)
        XCTAssertEqual(kept.inner.withLock { $0.waiters.count }, 0, "cancelled through the kept state")
    }

    func testTheDefaultReleaseWithoutAKeptStateCancelsByName() {
        let hubs = MemoryHubs(limits: Limits(), clock: TimetokenClock(wall: ManualClock()))
        let keyset: any KeysetBroker = Forwarding(inner: MemoryBroker(hubs: hubs).open(.demo))
        let room = Fixture.subscription(["room"])
        let waiter = TestWaiter()
        XCTAssertFalse(keyset.parkUnlessReady(waiter, on: room, after: Timetoken(rawValue: 1)))
        keyset.release(woken: waiter, on: room)
        XCTAssertEqual(hubs.hub("demo")?.waiterCount(on: "room"), 0)
    }

    /// Forwards everything to a memory keyset but `release(woken:on:kept:)`, which it leaves to
    /// the protocol's default.
    private struct Forwarding: ForwardingKeysetBroker {
        let inner: any KeysetBroker
    }
}
