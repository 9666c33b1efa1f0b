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

    /// Forwards to a memory keyset everything but `release(woken:on:kept:)`, which it leaves to
    /// the protocol's default.
    private struct Forwarding: KeysetBroker {
        let inner: any KeysetBroker

        var subscribeKey: String { inner.subscribeKey }
        func publish(_ draft: PublishDraft, beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
            inner.publish(draft, beforeDelivery: beforeDelivery)
        }
        func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                  kept: ChannelState?) -> DeliveryBatch? {
            inner.park(waiter, on: subscription, after: cursor, kept: kept)
        }
        func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                             kept: ChannelState?) -> Bool {
            inner.parkUnlessReady(waiter, on: subscription, after: cursor, kept: kept)
        }
        func channelState(for subscription: Subscription) -> ChannelState? { inner.channelState(for: subscription) }
        func read(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch { inner.read(subscription, after: cursor) }
        func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
            inner.cancel(waiter, on: subscription, kept: kept)
        }
        func addChannels(_ channels: [String], toGroup group: String) throws(PubNodeError) {
            try inner.addChannels(channels, toGroup: group)
        }
        func removeChannels(_ channels: [String], fromGroup group: String) throws(PubNodeError) {
            try inner.removeChannels(channels, fromGroup: group)
        }
        func deleteGroup(_ group: String) throws(PubNodeError) { try inner.deleteGroup(group) }
        func channels(inGroup group: String) throws(PubNodeError) -> [String] { try inner.channels(inGroup: group) }
        func groupNames() -> [String] { inner.groupNames() }
        func restore(_ messages: [PublishedMessage]) -> Int { inner.restore(messages) }
        func sweep() -> ChannelSweepReport { inner.sweep() }
        func statistics(busiest: Int) -> BrokerStatistics { inner.statistics(busiest: busiest) }
    }
}
