import Synchronization

/// A gate tasks wait at until the test opens it; waiting ignores cancellation, like work that
/// does not stop when asked. Once open, it stays open.
public final class TestGate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
    }

    private let state = Mutex(State())

    /// A closed gate.
    public init() {}

    /// Suspends until the gate is opened (at once if it is open).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state -> Bool in
                state.arrivals += 1
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    /// Opens the gate and lets every waiting task through.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many tasks reached the gate so far.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// How many tasks wait at the gate now.
    public var waiting: Int { state.withLock { $0.waiters.count } }
}
