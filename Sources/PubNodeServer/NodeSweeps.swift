import Logging
import PubNodeCore

/// The node's periodic sweeps as the sweep services call them: the one place that knows how a
/// sweep reaches the keysets and wakes the subscribers its events concern.
///
/// Called off the event loops, by one periodic service each; the node hands a sweep's wakes to the
/// waiters' own event loops. The services stop before the server drains, so no wake is ever
/// handed to an event loop that has shut down.
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
        let report = node.sweepChannels()
        if report.reclaimedChannels > 0 || report.expiredMessages > 0 {
            logger.debug("sweep", metadata: ["reclaimed": "\(report.reclaimedChannels)",
                                             "expired": "\(report.expiredMessages)"])
        }
    }

    /// Times out expired uuids and emits due interval events in every keyset; the node wakes the
    /// subscribers of the `-pnpres` channels those events went to.
    public func sweepPresence() {
        let started = ContinuousClock.now
        let counts = node.sweepPresence()
        guard counts.timedOut > 0 || counts.intervals > 0 else { return }
        let elapsed = (ContinuousClock.now - started).components
        logger.debug("presence sweep", metadata: [
            "timedOut": "\(counts.timedOut)", "intervals": "\(counts.intervals)",
            "ms": "\(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)"])
    }
}
