import Dispatch

/// Keeping batches while the store is away (`retainsWhileUnavailable`).
///
/// A batch whose commit failed with `HistoryError.unavailable` goes back to the head of the queue
/// and one retry is scheduled, after 100 ms doubling to at most 2 s per consecutive failure. Until
/// a commit succeeds, new messages only join the queue (the retry commits them with the rest), so
/// an outage costs one attempt per delay, not one per publish; `isBacklogFull` refuses what would
/// exceed the bound. The first successful commit ends the outage and commits what is left at once.
extension HistoryWriter {
    /// The delay before retry number `attempt` (from 1), in milliseconds.
    static func retryDelay(attempt: Int) -> Int {
        min(2000, 100 << min(max(attempt, 1) - 1, 5))
    }

    /// The bytes a queued message counts against `maxPendingBytes`.
    static func pendingBytes(_ message: StoredMessage) -> Int {
        message.payload.count + (message.meta?.count ?? 0)
    }

    /// Puts `messages` (a failed batch's rest) back at the head of the queue and schedules a
    /// retry; the first failure of an outage is reported (with no message lost).
    func retain(_ messages: [StoredMessage], after error: HistoryError) {
        record(failed: 0, error: error)
        let (first, delay) = state.withLock { state -> (Bool, Int?) in
            state.pending = messages + state.pending
            state.pendingBytes += messages.reduce(0) { $0 + Self.pendingBytes($1) }
            state.inFlightBytes = 0
            state.retryAttempt += 1
            let first = state.retryAttempt == 1
            guard !state.closed, !state.retryScheduled else { return (first, nil) }
            state.retryScheduled = true
            return (first, Self.retryDelay(attempt: state.retryAttempt))
        }
        if first { onFailure(error, 0) }
        guard let delay else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
            guard let self else { return }
            state.withLock { $0.retryScheduled = false }
            drain()
        }
    }

    /// A drain committed everything it took: ends an outage, committing at once what queued
    /// meanwhile.
    func recovered() {
        let resume = state.withLock { state -> Bool in
            guard state.retryAttempt > 0 else { return false }
            state.retryAttempt = 0
            guard !state.pending.isEmpty, !state.scheduled else { return false }
            state.scheduled = true
            state.immediate = true
            return true
        }
        if resume { queue.async { self.drain() } }
    }

    /// Whether batches are waiting for the store to come back (an outage in progress).
    public var isRetrying: Bool {
        state.withLock { $0.retryAttempt > 0 }
    }

    /// Commits what is queued and stops retrying (the node is stopping): what still waits for an
    /// unreachable store then is lost.
    public func close() {
        state.withLock { $0.closed = true }
        flush()
    }
}
