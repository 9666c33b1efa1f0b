import NIOCore
import Synchronization

/// One value per event loop, made on the loop's first use and kept for the owner's life.
///
/// What a loop's connections write many times a second goes to their loop's value, which no other
/// core writes: no cache line bounces between the loops and no atomic read-modify-write is needed
/// where the loop is the only writer. Readers (a scrape, the statistics) visit every loop's value.
/// A connection looks its loop's value up once, when it is added.
final class PerLoop<Value: AnyObject & Sendable>: Sendable {
    /// Each value by its loop's identity, beside the loop itself: held, the loop cannot be freed
    /// and its address taken by another loop, which would then find this loop's value.
    private let values = Mutex<[ObjectIdentifier: (loop: any EventLoop, value: Value)]>([:])
    private let make: @Sendable (any EventLoop) -> Value

    /// Values made by `make` for each loop that asks.
    init(_ make: @escaping @Sendable (any EventLoop) -> Value) {
        self.make = make
    }

    /// The value of `loop`, made on first use.
    func value(for loop: any EventLoop) -> Value {
        values.withLock { values in
            if let entry = values[ObjectIdentifier(loop)] { return entry.value }
            let value = make(loop)
            values[ObjectIdentifier(loop)] = (loop, value)
            return value
        }
    }

    /// Every loop's value, in no particular order.
    var all: [Value] { values.withLock { $0.values.map(\.value) } }
}

/// A count one event loop keeps and any thread reads.
///
/// Only the loop it belongs to changes it (`add`), so a change is a relaxed load and store,
/// no locked instruction; a reader loads relaxed and may see it a change late.
final class LoopCount: Sendable {
    private let count = Atomic<Int>(0)

    /// Zero.
    init() {}

    /// The count now.
    var value: Int { count.load(ordering: .relaxed) }

    /// Adds `amount` (negative to take away); on the count's own loop only.
    func add(_ amount: Int) {
        count.store(count.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
    }
}
