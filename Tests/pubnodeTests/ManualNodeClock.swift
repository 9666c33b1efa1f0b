import PubNodeCore
import Synchronization

/// A `NodeClock` moved by hand: `advance(by:)` moves the wall time and resumes the sleepers that
/// fall due; `sleepers(atLeast:)` lets a test wait until a service has gone to sleep.
final class ManualNodeClock: NodeClock {
    private struct Sleeper {
        var deadline: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: UInt64 = 1_700_000_000_000_000_000
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelledBeforeSleeping: Set<Int> = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        mutating func notifyWatchers() {
            let ready = watchers.filter { $0.count <= sleepers.count }
            watchers.removeAll { $0.count <= sleepers.count }
            for watcher in ready { watcher.continuation.resume() }
        }
    }

    private let state = Mutex(State())

    /// The current wall time.
    func nowNanoseconds() -> UInt64 { state.withLock { $0.now } }

    /// Suspends until `advance` reaches now + `duration`; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws {
        let nanoseconds = UInt64(duration.components.seconds) * 1_000_000_000
            + UInt64(duration.components.attoseconds / 1_000_000_000)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock { state in
                    if state.cancelledBeforeSleeping.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    state.sleepers[id] = Sleeper(deadline: state.now + nanoseconds, continuation: continuation)
                    state.notifyWatchers()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledBeforeSleeping.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and resumes every sleeper now due.
    func advance(by duration: Duration) {
        let nanoseconds = UInt64(duration.components.seconds) * 1_000_000_000
            + UInt64(duration.components.attoseconds / 1_000_000_000)
        let due = state.withLock { state -> [Sleeper] in
            state.now += nanoseconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// How many tasks sleep on this clock now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns once at least `count` tasks sleep on this clock.
    func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                if state.sleepers.count >= count {
                    continuation.resume()
                } else {
                    state.watchers.append((count, continuation))
                }
            }
        }
    }
}
