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
        func add(_ batch: DeliveryBatch, to counters: KeysetCounters) {
            tally.add(batch, toCountersAt: DeliveryTally.address(of: counters)) { counters }
        }
        add(two, to: first)
        add(two, to: first)
        add(missed, to: first)
        XCTAssertEqual(first.snapshot.deliveries, 0, "nothing added until the keyset changes or the tally is flushed")
        add(two, to: second)
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
