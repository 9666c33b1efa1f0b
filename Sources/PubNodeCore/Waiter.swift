/// A parked subscription that publishers wake when a message may be ready for it.
///
/// The transport implements it (the HTTP server holds a parked long-poll as channel state).
/// `wake()` may be called from any thread, more than once, and must only schedule work.
public protocol Waiter: AnyObject, Sendable {
    /// Schedules the waiter to collect its messages.
    func wake()

    /// The group this waiter is woken with when many are woken at once (`wakeAll()`), nil to be
    /// woken alone. The transport groups waiters by thread, so that a publish reaching thousands
    /// of subscribers hands each thread its share at once instead of one by one.
    var wakeGroup: (any WakeGroup)? { get }
}

extension Waiter {
    /// Woken alone.
    public var wakeGroup: (any WakeGroup)? { nil }
}

/// Waiters that are cheaper to wake together than one by one (see `Waiter.wakeGroup`).
public protocol WakeGroup: AnyObject, Sendable {
    /// Wakes `waiters`, all of them of this group, in order.
    func wake(_ waiters: [any Waiter])
}

extension Sequence where Element == any Waiter {
    /// Wakes every waiter: the lone ones at once, then each group's together, in the order they came.
    public func wakeAll() {
        // Nearly always every waiter has the same group (one per thread of the transport, and a
        // publish usually reaches few subscribers or many on one loop): the first group is kept
        // apart, and a list of the others, searched from its end, is made only when one appears.
        var first: (group: any WakeGroup, waiters: [any Waiter])?
        var others: [(group: any WakeGroup, waiters: [any Waiter])] = []
        for waiter in self {
            guard let group = waiter.wakeGroup else {
                waiter.wake()
                continue
            }
            if first == nil {
                first = (group, [waiter])
            } else if first!.group === group {
                first!.waiters.append(waiter)
            } else if let index = others.lastIndex(where: { $0.group === group }) {
                others[index].waiters.append(waiter)
            } else {
                others.append((group, [waiter]))
            }
        }
        guard let first else { return }
        if first.waiters.count == 1 { first.waiters[0].wake() } else { first.group.wake(first.waiters) }
        for entry in others { entry.group.wake(entry.waiters) }
    }
}

/// The waiters registered on one topic, keyed by identity for O(1) removal.
struct WaiterSet {
    private var waiters: [ObjectIdentifier: any Waiter] = [:]
    /// The most waiters held at once since the last `compact()`: a sweep that lands just after a
    /// publish took every waiter finds the table empty, though the audience is back a moment later.
    private var peak = 0

    var isEmpty: Bool { waiters.isEmpty }
    var count: Int { waiters.count }

    mutating func insert(_ waiter: any Waiter) {
        waiters[ObjectIdentifier(waiter)] = waiter
        if waiters.count > peak { peak = waiters.count }
    }

    mutating func remove(_ waiter: any Waiter) {
        waiters[ObjectIdentifier(waiter)] = nil
    }

    /// Removes and returns every waiter: once woken, a waiter registers again on its next poll.
    ///
    /// The table keeps its capacity: the woken come back within moments, and a table emptied to
    /// nothing grew again through every power of two to hold them, rehashing each waiter about
    /// twice per message. `compact()` gives back what a topic's audience no longer needs.
    mutating func takeAll(into out: inout [any Waiter]) {
        guard !waiters.isEmpty else { return }
        out.append(contentsOf: waiters.values)
        waiters.removeAll(keepingCapacity: true)
    }

    /// How many waiters the table holds without growing.
    var capacity: Int { waiters.capacity }

    /// Shrinks a table whose capacity is over four times what its waiters need (at least 64), its
    /// need being the most it held since the last call: a topic's memory follows its audience
    /// down, by the second sweep after it has shrunk.
    mutating func compact() {
        let need = Swift.max(peak, waiters.count)
        peak = waiters.count
        guard waiters.capacity > 4 * Swift.max(need, 16) else { return }
        var smaller = [ObjectIdentifier: any Waiter](minimumCapacity: waiters.count)
        for (key, waiter) in waiters { smaller[key] = waiter }
        waiters = smaller
    }
}
