import Synchronization

/// Wakes idle delivery workers when work arrives, or after a deadline, whichever comes first.
final class Doorbell: Sendable {
    private struct State {
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
        var rung = false
    }

    private let state = Mutex(State())

    /// Suspends until `ring()` or until `duration` has passed. A ring with nobody waiting is kept
    /// for the next wait, so work queued between a check and a wait is not missed.
    func wait(upTo duration: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = state.withLock { state -> UInt64? in
                if state.rung {
                    state.rung = false
                    return nil
                }
                state.nextID += 1
                state.waiters[state.nextID] = continuation
                return state.nextID
            }
            guard let id else { return continuation.resume() }
            Task { [weak self] in
                try? await Task.sleep(for: duration)
                self?.resume(id)
            }
        }
    }

    /// Wakes every waiter (or the next one to wait).
    func ring() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.waiters.isEmpty else {
                state.rung = true
                return []
            }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for continuation in woken { continuation.resume() }
    }

    private func resume(_ id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
