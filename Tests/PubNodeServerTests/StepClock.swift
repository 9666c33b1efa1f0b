import PubNodeCore
import Synchronization

/// A wall clock the test moves by hand, for presence timeouts without sleeping.
final class StepClock: WallClock {
    private let nanoseconds = Mutex<UInt64>(1_700_000_000_000_000_000)

    func nowNanoseconds() -> UInt64 { nanoseconds.withLock { $0 } }

    func advance(seconds: UInt64) {
        nanoseconds.withLock { $0 += seconds * 1_000_000_000 }
    }
}
