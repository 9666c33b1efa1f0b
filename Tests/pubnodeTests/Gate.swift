import Synchronization

/// A one-way gate for tests: `wait()` suspends until `open()`.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Suspends until the gate is open.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                if state.open { continuation.resume() } else { state.waiters.append(continuation) }
            }
        }
    }

    /// Opens the gate for every waiter, present and future.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A list of events appended from any task.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])

    /// Appends one event.
    func record(_ event: String) { events.withLock { $0.append(event) } }

    /// The events so far, in order.
    var all: [String] { events.withLock { $0 } }
}
