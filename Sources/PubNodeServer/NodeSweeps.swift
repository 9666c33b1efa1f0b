import Logging
import PubNodeCore

/// The node's periodic sweeps as the sweep services call them: the one place that knows how a
/// sweep reaches the keysets and wakes the subscribers its events concern.
///
/// Called off the event loops, by one periodic service each; a sweep's wakes are handed to the
/// waiters' own event loops through `WakeBatcher`. The services stop before the server drains,
/// so no wake is ever handed to an event loop that has shut down.
public struct NodeSweeps: Sendable {
    /// The node swept.
    public let node: Node
    private let logger: Logger

    /// Creates the sweeps of `node`, logging what they did at debug level.
    public init(node: Node, logger: Logger) {
        self.node = node
        self.logger = logger
    }

    /// Expires old buffered messages and reclaims idle, empty channels in every keyset.
    public func sweepChannels() {
        for keyset in node.broker.allKeysets {
            let report = keyset.sweep()
            if report.reclaimedChannels > 0 || report.expiredMessages > 0 {
                logger.debug("sweep", metadata: ["reclaimed": "\(report.reclaimedChannels)",
                                                 "expired": "\(report.expiredMessages)"])
            }
        }
    }

    /// Times out expired uuids and emits due interval events in every keyset, waking the
    /// subscribers of the `-pnpres` channels those events went to.
    public func sweepPresence() {
        for keyset in node.broker.allKeysets {
            let started = ContinuousClock.now
            let report = keyset.sweepPresence()
            WakeBatcher.wake(report.waiters)
            guard report.counts.timedOut > 0 || report.counts.intervals > 0 else { continue }
            let elapsed = (ContinuousClock.now - started).components
            logger.debug("presence sweep", metadata: [
                "timedOut": "\(report.counts.timedOut)", "intervals": "\(report.counts.intervals)",
                "ms": "\(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)"])
        }
    }
}
