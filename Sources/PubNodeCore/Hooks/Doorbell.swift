import Synchronization

/// Wakes idle tasks when work arrives, or after a deadline on the node clock, whichever comes first.
final class Doorbell: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var rung = false
    }

    private let state = Mutex(State())
    private let clock: any NodeClock

    /// A doorbell whose timed waits run on `clock`.
    init(clock: any NodeClock) {
        self.clock = clock
    }

    /// Suspends until a `ring()` reaches this waiter or `duration` of the clock has passed. A ring
    /// with nobody waiting is kept for the next wait, so work queued between a check and a wait is
    /// not missed.
    func wait(upTo duration: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = state.withLock { state -> UInt64? in
                if state.rung {
                    state.rung = false
                    return nil
                }
                state.nextID += 1
                state.waiters[state.nextID] = Waiter(continuation: continuation)
                return state.nextID
            }
            guard let id else { return continuation.resume() }
            let clock = self.clock
            let timer = Task { [weak self] in
                try? await clock.sleep(for: duration)
                guard !Task.isCancelled else { return }
                self?.resume(id)
            }
            let late = state.withLock { state -> Bool in
                guard state.waiters[id] != nil else { return true }
                state.waiters[id]?.timer = timer
                return false
            }
            if late { timer.cancel() }
        }
    }

    /// Wakes one waiter (or the next one to wait).
    func ring() {
        let woken = state.withLock { state -> Waiter? in
            guard let id = state.waiters.keys.first else {
                state.rung = true
                return nil
            }
            return state.waiters.removeValue(forKey: id)
        }
        woken?.timer?.cancel()
        woken?.continuation.resume()
    }

    /// Wakes every waiter, and the next one to wait.
    func ringAll() {
        let woken = state.withLock { state -> [Waiter] in
            state.rung = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }

    private func resume(_ id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }
}
