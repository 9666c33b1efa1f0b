import Dispatch
import Logging
import NIOCore
import PubNodeCore
import Synchronization

/// Runs the presence sweeps of every keyset off the event loops.
///
/// Timing out thousands of uuids at once takes tens of milliseconds; on an event loop that would
/// hold up every connection of that loop. So each tick only hands a sweep to one serial queue
/// (skipped while the previous one still runs). The subscribers of the events it emits are woken
/// by the presence store; `finish()` waits for a running sweep, so the server calls it before the
/// event loops stop and no wake ever targets a loop that has shut down.
final class PresenceSweep: Sendable {
    private let queue = DispatchQueue(label: "pubnode.presence-sweep")
    private let running = Atomic<Bool>(false)
    private let node: Node
    private let logger: Logger

    /// Creates the sweeper of `node`'s keysets.
    init(node: Node, logger: Logger) {
        self.node = node
        self.logger = logger
    }

    /// One tick: starts a sweep unless the previous one is still running.
    func tick() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            defer { running.store(false, ordering: .releasing) }
            let started = NIODeadline.now()
            let counts = node.sweepPresence()
            guard counts.timedOut > 0 || counts.intervals > 0 else { return }
            logger.debug("presence sweep", metadata: [
                "timedOut": "\(counts.timedOut)", "intervals": "\(counts.intervals)",
                "ms": "\((NIODeadline.now() - started).nanoseconds / 1_000_000)"])
        }
    }

    /// Waits for a sweep in progress to end.
    func finish() {
        queue.sync {}
    }
}
