import Dispatch
import Logging
import NIOCore
import PubNodeCore
import Synchronization

/// Runs the presence sweeps of every keyset off the event loops.
///
/// Timing out thousands of uuids at once takes tens of milliseconds; on an event loop that would
/// hold up every connection of that loop. So each tick of the server's repeating task only hands a
/// sweep to one serial queue (skipped while the previous one still runs). The waiters its events
/// woke are kept and woken by the next tick, on the event loop: the repeating task is cancelled
/// before the server drains, so no wake is ever scheduled on an event loop that has shut down.
/// Timeout and interval events thus reach parked subscribers at most one tick later.
final class PresenceSweep: Sendable {
    private let queue = DispatchQueue(label: "pubnode.presence-sweep")
    private let running = Atomic<Bool>(false)
    private let pending = Mutex<[any Waiter]>([])
    private let node: Node
    private let logger: Logger

    /// Creates the sweeper of `node`'s keysets.
    init(node: Node, logger: Logger) {
        self.node = node
        self.logger = logger
    }

    /// One tick, on the sweep's event loop: wakes the waiters of the previous sweep, then starts the
    /// next sweep unless the previous one is still running.
    func tick() {
        let woken = pending.withLock { waiters -> [any Waiter] in
            defer { waiters = [] }
            return waiters
        }
        WakeBatcher.wake(woken)
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            defer { running.store(false, ordering: .releasing) }
            for keyset in node.broker.allKeysets {
                let started = NIODeadline.now()
                let report = keyset.sweepPresence()
                pending.withLock { $0.append(contentsOf: report.waiters) }
                guard report.counts.timedOut > 0 || report.counts.intervals > 0 else { continue }
                logger.debug("presence sweep", metadata: [
                    "timedOut": "\(report.counts.timedOut)", "intervals": "\(report.counts.intervals)",
                    "ms": "\((NIODeadline.now() - started).nanoseconds / 1_000_000)"])
            }
        }
    }
}
