import Synchronization

/// Runs async work under a timeout without waiting for work that ignores cancellation: the caller
/// gets `HookFailure.timedOut` at the deadline, and the work is cancelled and left to finish alone.
enum Deadline {
    /// Runs `work` (on `executor` when given) and returns its result, or throws `timedOut` once
    /// `timeout` of `clock` has passed.
    static func run<T: Sendable>(_ timeout: Duration, on clock: any NodeClock, executor: (any TaskExecutor)? = nil,
                                 _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let race = Race(continuation)
            let worker = Task(executorPreference: executor) {
                do { race.finish(.success(try await work())) } catch { race.finish(.failure(error)) }
            }
            let timer = Task(executorPreference: executor) {
                try await clock.sleep(for: timeout)
                if race.finish(.failure(HookFailure.timedOut)) { worker.cancel() }
            }
            race.onFinish { timer.cancel() }
        }
    }

    /// Resumes a continuation once: the first of the work and the timer wins.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var cleanup: (@Sendable () -> Void)?
            var done = false
        }

        private let state: Mutex<State>

        init(_ continuation: CheckedContinuation<T, any Error>) {
            state = Mutex(State(continuation: continuation))
        }

        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            let (continuation, cleanup) = state.withLock { state in
                defer { state.continuation = nil; state.cleanup = nil; state.done = true }
                return (state.continuation, state.cleanup)
            }
            guard let continuation else { return false }
            continuation.resume(with: result)
            cleanup?()
            return true
        }

        func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
            let done = state.withLock { state -> Bool in
                if !state.done { state.cleanup = cleanup }
                return state.done
            }
            if done { cleanup() }
        }
    }
}
