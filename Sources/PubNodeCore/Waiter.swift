/// A parked subscription that publishers wake when a message may be ready for it.
///
/// The transport implements it (the HTTP server holds a parked long-poll as channel state).
/// `wake()` may be called from any thread, more than once, and must only schedule work.
public protocol Waiter: AnyObject, Sendable {
    /// Schedules the waiter to collect its messages.
    func wake()
}

/// The waiters registered on one topic, keyed by identity for O(1) removal.
struct WaiterSet {
    private var waiters: [ObjectIdentifier: any Waiter] = [:]

    var isEmpty: Bool { waiters.isEmpty }
    var count: Int { waiters.count }

    mutating func insert(_ waiter: any Waiter) {
        waiters[ObjectIdentifier(waiter)] = waiter
    }

    mutating func remove(_ waiter: any Waiter) {
        waiters[ObjectIdentifier(waiter)] = nil
    }

    /// Removes and returns every waiter: once woken, a waiter registers again on its next poll.
    mutating func takeAll(into out: inout [any Waiter]) {
        guard !waiters.isEmpty else { return }
        out.append(contentsOf: waiters.values)
        waiters.removeAll(keepingCapacity: false)
    }
}
