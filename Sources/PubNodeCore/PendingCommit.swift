import Synchronization

/// A strict-mode history write in flight: completed once by the writer, observed by whoever must
/// answer the publisher. Observers added before or after completion each run exactly once.
public final class PendingCommit: Sendable {
    private struct State {
        var outcome: HistoryError?? = nil
        var observers: [@Sendable (HistoryError?) -> Void] = []
    }

    private let state = Mutex(State())

    /// Creates an unresolved commit.
    public init() {}

    /// Resolves the commit: nil for success, or the error. Later calls are ignored.
    public func complete(_ error: HistoryError?) {
        let observers = state.withLock { state -> [@Sendable (HistoryError?) -> Void] in
            guard state.outcome == nil else { return [] }
            state.outcome = .some(error)
            defer { state.observers = [] }
            return state.observers
        }
        for observer in observers { observer(error) }
    }

    /// Runs `body` with the outcome once it is known (at once, on this thread, if it already is;
    /// otherwise on the thread that completes it).
    public func whenDone(_ body: @escaping @Sendable (HistoryError?) -> Void) {
        let known = state.withLock { state -> HistoryError?? in
            if state.outcome == nil { state.observers.append(body) }
            return state.outcome
        }
        if let known { body(known) }
    }
}
