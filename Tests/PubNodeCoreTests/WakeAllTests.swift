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

    /// A waiter woken with `group`.
    private final class Grouped: Waiter {
        let group: Group
        init(_ group: Group) { self.group = group }
        func wake() { XCTFail("a grouped waiter is woken through its group") }
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
    }
}
