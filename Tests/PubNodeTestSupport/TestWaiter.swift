import PubNodeCore
import Synchronization

/// A parked subscriber stand-in that counts its wake-ups.
public final class TestWaiter: Waiter {
    private let wakes = Mutex(0)

    /// A waiter not woken yet.
    public init() {}

    /// Counts one wake-up.
    public func wake() {
        wakes.withLock { $0 += 1 }
    }

    /// How many times it was woken.
    public var wakeCount: Int { wakes.withLock { $0 } }
}
