import Foundation

/// The clock of the client's waits (retry gaps, heartbeats, the leave settle); inject one in tests
/// to control time.
public protocol PubNodeSleeper: Sendable {
    /// Suspends for `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws

    /// The present reading of this clock in seconds from any fixed origin: the client measures how
    /// long ago something happened against it before sleeping the rest of a wait. Defaults to
    /// real (monotonic) time.
    func now() -> Double
}

extension PubNodeSleeper {
    /// Real monotonic time, in seconds since the first reading of the process.
    public func now() -> Double { TaskSleeper.monotonicSeconds() }
}

/// Real time, with `Task.sleep`.
public struct TaskSleeper: PubNodeSleeper {
    private static let origin = ContinuousClock.now

    /// A real-time sleeper.
    public init() {}

    /// Sleeps for `seconds`.
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }

    /// Seconds of the continuous clock since the first reading of the process.
    public func now() -> Double { Self.monotonicSeconds() }

    static func monotonicSeconds() -> Double {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The recently delivered messages, to drop a message delivered twice (e.g. after a retry).
struct DedupeCache: Sendable {
    private var keys: Set<String> = []
    private var order: [String] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Records `key`; `false` when it was already there.
    mutating func insert(_ key: String) -> Bool {
        guard !keys.contains(key) else { return false }
        keys.insert(key)
        if order.count < capacity {
            order.append(key)
        } else {
            keys.remove(order[next])
            order[next] = key
            next = (next + 1) % capacity
        }
        return true
    }

    /// The number of keys held.
    var count: Int { keys.count }
}
