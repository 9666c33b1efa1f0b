import Synchronization

/// What one keyset has done since the node started: cheap relaxed atomic counters bumped on the
/// hot paths (one add each, no lock) and read by the statistics endpoint and the metrics export.
///
/// Invariant: every field only grows; readers may see counters a few operations apart from each
/// other, never a torn value.
public final class KeysetCounters: Sendable {
    /// Messages accepted (`/publish`).
    let messages = Atomic<Int>(0)
    /// Signals accepted.
    let signals = Atomic<Int>(0)
    /// Fires accepted (handed to the hooks, never buffered).
    let fires = Atomic<Int>(0)
    /// Messages written to subscribers (one message to three subscribers counts three).
    let deliveries = Atomic<Int>(0)
    /// Catch-ups whose cursor was older than a message the buffer had already dropped.
    let bufferGaps = Atomic<Int>(0)
    /// Publishes refused by the keyset's publish rate limit.
    let publishRefusals = Atomic<Int>(0)
    /// Requests refused by the keyset's request rate limit.
    let requestRefusals = Atomic<Int>(0)

    /// Counters at zero.
    public init() {}

    /// Counts one accepted message, signal or fire.
    func accepted(_ kind: MessageKind, fire: Bool) {
        if fire {
            fires.add(1, ordering: .relaxed)
        } else if kind == .signal {
            signals.add(1, ordering: .relaxed)
        } else {
            messages.add(1, ordering: .relaxed)
        }
    }

    /// Counts an answer written to a subscriber.
    func delivered(_ batch: DeliveryBatch) {
        delivered(batch.deliveries.count, gaps: batch.missed ? 1 : 0)
    }

    /// Counts `count` messages written to subscribers, `gaps` of whose answers missed messages.
    func delivered(_ count: Int, gaps: Int) {
        if count > 0 { deliveries.add(count, ordering: .relaxed) }
        if gaps > 0 { bufferGaps.add(gaps, ordering: .relaxed) }
    }

    /// The counters now.
    public var snapshot: Snapshot {
        Snapshot(messages: messages.load(ordering: .relaxed), signals: signals.load(ordering: .relaxed),
                 fires: fires.load(ordering: .relaxed), deliveries: deliveries.load(ordering: .relaxed),
                 bufferGaps: bufferGaps.load(ordering: .relaxed),
                 publishRefusals: publishRefusals.load(ordering: .relaxed),
                 requestRefusals: requestRefusals.load(ordering: .relaxed))
    }

    /// The counters' values at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Messages accepted.
        public var messages = 0
        /// Signals accepted.
        public var signals = 0
        /// Fires accepted.
        public var fires = 0
        /// Messages written to subscribers.
        public var deliveries = 0
        /// Catch-ups that had lost messages off the end of a buffer.
        public var bufferGaps = 0
        /// Publishes refused by the keyset's publish rate limit.
        public var publishRefusals = 0
        /// Requests refused by the keyset's request rate limit.
        public var requestRefusals = 0

        /// Every refusal by the keyset's rate limits.
        public var rateLimited: Int { publishRefusals + requestRefusals }

        /// The sum of two snapshots (node totals).
        public static func + (lhs: Snapshot, rhs: Snapshot) -> Snapshot {
            Snapshot(messages: lhs.messages + rhs.messages, signals: lhs.signals + rhs.signals,
                     fires: lhs.fires + rhs.fires, deliveries: lhs.deliveries + rhs.deliveries,
                     bufferGaps: lhs.bufferGaps + rhs.bufferGaps,
                     publishRefusals: lhs.publishRefusals + rhs.publishRefusals,
                     requestRefusals: lhs.requestRefusals + rhs.requestRefusals)
        }
    }
}
