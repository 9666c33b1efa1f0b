@testable import PubNodeCore
import XCTest

/// Deliveries counted together and added to each keyset's counters once.
final class DeliveryTallyTests: XCTestCase {
    func testATallyAddsToEachKeysetsCountersWhenTheKeysetChangesAndWhenFlushed() {
        let hub = ChannelHub(subscribeKey: "demo", limits: Limits(), clock: TimetokenClock())
        _ = hub.publish(Fixture.draft("room", "\"one\""))
        _ = hub.publish(Fixture.draft("room", "\"two\""))
        let two = hub.collect(Subscription(channels: ["room"]), after: .zero)
        XCTAssertEqual(two.deliveries.count, 2)
        let missed = DeliveryBatch(deliveries: [], next: Timetoken(1), gaps: [ChannelGap(channel: "room", through: Timetoken(1))])
        let first = KeysetCounters(), second = KeysetCounters()
        var tally = DeliveryTally()
        tally.add(two, to: first)
        tally.add(two, to: first)
        tally.add(missed, to: first)
        XCTAssertEqual(first.snapshot.deliveries, 0, "nothing added until the keyset changes or the tally is flushed")
        tally.add(two, to: second)
        XCTAssertEqual(first.snapshot.deliveries, 4)
        XCTAssertEqual(first.snapshot.bufferGaps, 1)
        XCTAssertEqual(second.snapshot.deliveries, 0)
        tally.flush()
        XCTAssertEqual(second.snapshot.deliveries, 2)
        tally.flush()
        XCTAssertEqual(second.snapshot.deliveries, 2, "a flush adds what was counted once")
        XCTAssertEqual(first.snapshot.deliveries, 4)
    }
}
