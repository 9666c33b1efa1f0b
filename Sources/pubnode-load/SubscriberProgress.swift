import Synchronization

/// Counters shared by all subscribers of a fan-out or park run.
final class SubscriberProgress: Sendable {
    /// Subscribers whose long-poll is parked (handshake done and next poll sent).
    private let parkedCount = Atomic<Int>(0)
    /// Messages delivered to subscribers (first delivery of each sequence number).
    private let deliveredCount = Atomic<Int>(0)
    /// Messages delivered more than once to the same subscriber.
    private let duplicateCount = Atomic<Int>(0)
    /// Messages published so far by the fan-out publisher.
    private let publishedCount = Atomic<Int>(0)
    /// Messages stamped before this run started (left over in a server buffer), ignored.
    private let staleCount = Atomic<Int>(0)
    /// Set when the run is being torn down; connection losses are then expected.
    private let stoppingFlag = Atomic<Bool>(false)
    /// Subscriber-side errors.
    let errors = ErrorLog()
    /// Publisher-side errors.
    let publishErrors = ErrorLog()

    /// Monotonic time at which the run started; older stamps are stale.
    let startedAt: UInt64

    /// Creates zeroed counters.
    init() {
        startedAt = MonotonicClock.now()
    }

    /// Counts one more parked subscriber.
    func markParked() { parkedCount.add(1, ordering: .relaxed) }
    /// Counts delivered messages.
    func markDelivered(_ count: Int) { deliveredCount.add(count, ordering: .relaxed) }
    /// Counts duplicate deliveries.
    func markDuplicate(_ count: Int) { duplicateCount.add(count, ordering: .relaxed) }
    /// Counts ignored stale messages.
    func markStale(_ count: Int) { staleCount.add(count, ordering: .relaxed) }
    /// Counts one published message.
    func markPublished() { publishedCount.add(1, ordering: .relaxed) }
    /// Marks the start of tear-down.
    func markStopping() { stoppingFlag.store(true, ordering: .relaxed) }

    /// Parked subscribers so far.
    var parked: Int { parkedCount.load(ordering: .relaxed) }
    /// Delivered messages so far.
    var delivered: Int { deliveredCount.load(ordering: .relaxed) }
    /// Duplicate deliveries so far.
    var duplicates: Int { duplicateCount.load(ordering: .relaxed) }
    /// Stale messages ignored so far.
    var stale: Int { staleCount.load(ordering: .relaxed) }
    /// Published messages so far.
    var published: Int { publishedCount.load(ordering: .relaxed) }
    /// Whether tear-down has started.
    var isStopping: Bool { stoppingFlag.load(ordering: .relaxed) }
}
