import PubNodeClient
import PubNodeCore
import Synchronization

/// A clock the test moves by hand: a `NodeClock` for the node (wall readings, hook retries,
/// timeouts and batching) and a `PubNodeSleeper` for clients (retry gaps, heartbeats). `advance`
/// moves the wall time and resumes every sleeper that falls due, so time-based behaviour runs
/// without sleeping. Safe to use from any thread.
public final class ManualClock: NodeClock, PubNodeSleeper {
    /// 2023-11-14T22:13:20.123456789Z: not a multiple of 100 ns, so the division is visible.
    public static let start: UInt64 = 1_700_000_000_123_456_789

    private struct Sleeper {
        var deadline: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: UInt64
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleeps begun whose continuation is not registered yet; one cancelled meanwhile is
        /// removed, and then never registers.
        var starting: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// A clock reading `start` nanoseconds since the Unix epoch.
    public init(_ start: UInt64 = ManualClock.start) {
        state = Mutex(State(now: start))
    }

    // MARK: Readings

    /// The present wall time in nanoseconds.
    public func nowNanoseconds() -> UInt64 {
        state.withLock { $0.now }
    }

    /// The present time in seconds (the client's reading of this clock).
    public func now() -> Double {
        Double(nowNanoseconds()) / 1_000_000_000
    }

    /// How many sleeps are waiting for the clock to move.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// The wall times the waiting sleeps fall due at, earliest first.
    public var deadlines: [UInt64] {
        state.withLock { $0.sleepers.values.map(\.deadline).sorted() }
    }

    /// True when some sleep falls due exactly `duration` from now.
    public func hasSleeper(dueIn duration: Duration) -> Bool {
        state.withLock { state in
            let deadline = state.now &+ Self.nanoseconds(duration)
            return state.sleepers.values.contains { $0.deadline == deadline }
        }
    }

    // MARK: Moving time

    /// Moves the wall time forward by `duration` and resumes the sleepers due by then.
    public func advance(by duration: Duration) {
        move { $0 &+ Self.nanoseconds(duration) }
    }

    /// Moves the wall time forward by `delta` nanoseconds.
    public func advance(nanoseconds delta: UInt64) {
        move { $0 &+ delta }
    }

    /// Moves the wall time forward by whole `seconds`.
    public func advance(seconds: UInt64) {
        advance(nanoseconds: seconds * 1_000_000_000)
    }

    /// Sets the wall time (forward or back) and resumes the sleepers due by then.
    public func set(_ value: UInt64) {
        move { _ in value }
    }

    /// Moves the wall time back by `delta` nanoseconds; sleepers fall due that much later.
    public func rewind(nanoseconds delta: UInt64) {
        move { $0 &- delta }
    }

    private func move(_ change: (UInt64) -> UInt64) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = change(state.now)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    // MARK: Sleeping

    /// Suspends until the clock has been moved `duration` past the present; throws
    /// `CancellationError` when the calling task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.starting.insert(state.nextID)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, due, cancelled }
                let outcome = state.withLock { state -> Outcome in
                    guard state.starting.remove(id) != nil else { return .cancelled }
                    let deadline = state.now &+ Self.nanoseconds(duration)
                    guard deadline > state.now else { return .due }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                state.starting.remove(id)
                return state.sleepers.removeValue(forKey: id)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Suspends until the clock has been moved `seconds` past the present.
    public func sleep(seconds: Double) async throws {
        try await sleep(for: .nanoseconds(Int64(min(max(0, seconds), 1e9) * 1_000_000_000)))
    }

    /// Whole nanoseconds of a non-negative duration (negative ones count as zero).
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
