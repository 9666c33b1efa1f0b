import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

/// `wakeAll()` hands each wake group its waiters in one call, in order, and wakes the rest alone.
final class WakeAllTests: XCTestCase {
    /// A group recording the batches it was handed.
    private final class Group: WakeGroup {
        let batches = Mutex<[[ObjectIdentifier]]>([])
        func wake(_ waiters: [any Waiter]) {
            batches.withLock { $0.append(waiters.map { ObjectIdentifier($0) }) }
        }
    }

    /// A waiter woken with `group`, counting the times it was woken alone.
    private final class Grouped: Waiter {
        let group: Group
        let aloneWakes = Mutex(0)
        init(_ group: Group) { self.group = group }
        func wake() { aloneWakes.withLock { $0 += 1 } }
        var wakeGroup: (any WakeGroup)? { group }
    }

    func testEachGroupGetsItsWaitersInOneBatchInOrder() {
        let first = Group(), second = Group()
        let lone = TestWaiter()
        let waiters: [any Waiter] = [Grouped(first), Grouped(second), lone, Grouped(first), Grouped(first), Grouped(second)]
        waiters.wakeAll()
        XCTAssertEqual(lone.wakeCount, 1)
        let ids = waiters.map { ObjectIdentifier($0) }
        XCTAssertEqual(first.batches.withLock { $0 }, [[ids[0], ids[3], ids[4]]])
        XCTAssertEqual(second.batches.withLock { $0 }, [[ids[1], ids[5]]])
        for case let grouped as Grouped in waiters { XCTAssertEqual(grouped.aloneWakes.withLock { $0 }, 0) }
    }

    func testASingleWaiterIsWokenAloneWithoutBuildingABatch() {
        let group = Group()
        let only = Grouped(group)
        ([only] as [any Waiter]).wakeAll()
        XCTAssertEqual(only.aloneWakes.withLock { $0 }, 1)
        XCTAssertTrue(group.batches.withLock { $0 }.isEmpty)
    }
}
