import DequeModule
import HeapModule
import Synchronization

/// The queue of one after hook: new events, retries waiting for their time, and dead letters.
///
/// Enqueueing is a short critical section on this hook's own mutex, so a slow endpoint backs up
/// only its own queue. Events are saved to the store (when there is one) before their first
/// attempt, rewritten after each failure and removed once delivered: delivery is at-least-once.
final class HookOutbox: Sendable {
    struct Entry: Sendable, Comparable {
        var record: OutboxRecord
        var due: ContinuousClock.Instant

        static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.due < rhs.due }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.record.id == rhs.record.id && lhs.due == rhs.due }
    }

    struct State {
        var incoming: Deque<OutboxRecord> = []
        var ready: Deque<OutboxRecord> = []
        var retrying = Heap<Entry>()
        var dead: Deque<OutboxRecord> = []
        var inFlight = 0
        var counters = HookStats.Counters()
        var closed = false
    }

    let binding: HookBinding
    let handler: any AfterHookHandler
    let store: (any HookOutboxStore)?
    let state = Mutex(State())
    let doorbell = Doorbell()

    init(binding: HookBinding, handler: any AfterHookHandler, store: (any HookOutboxStore)?) {
        self.binding = binding
        self.handler = handler
        self.store = store
    }

    /// Events waiting or being delivered.
    static func pending(_ state: State) -> Int {
        state.incoming.count + state.ready.count + state.retrying.count + state.inFlight
    }

    /// Queues a new event; false (and counted as dropped) when the queue is full.
    func enqueue(_ record: OutboxRecord) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard Self.pending(state) < binding.delivery.capacity, !state.closed else {
                state.counters.dropped += 1
                return false
            }
            state.incoming.append(record)
            state.counters.enqueued += 1
            return true
        }
        if accepted { doorbell.ring() }
        return accepted
    }

    /// Puts back what a previous run left: pending entries become ready, dead ones stay dead.
    func restore(_ records: [OutboxRecord]) {
        state.withLock { state in
            for record in records {
                if record.dead { state.dead.append(record) } else { state.ready.append(record) }
            }
        }
    }

    /// Takes the newly queued events to save before they are attempted.
    func takeIncoming() -> [OutboxRecord] {
        state.withLock { state in
            defer { state.incoming.removeAll() }
            return Array(state.incoming)
        }
    }

    /// Makes saved events available for delivery.
    func admit(_ records: [OutboxRecord]) {
        state.withLock { $0.ready.append(contentsOf: records) }
    }

    /// The next event to attempt now, or when the next retry is due.
    func next(now: ContinuousClock.Instant) -> (record: OutboxRecord?, wake: ContinuousClock.Instant?) {
        state.withLock { state in
            if let record = state.ready.popFirst() {
                state.inFlight += 1
                return (record, nil)
            }
            if let first = state.retrying.min, first.due <= now {
                state.inFlight += 1
                return (state.retrying.removeMin().record, nil)
            }
            return (nil, state.retrying.min?.due)
        }
    }

    /// A snapshot of the queue and counters.
    func stats() -> HookStats {
        state.withLock { state in
            HookStats(name: binding.name, trigger: binding.trigger, target: binding.target,
                      pending: Self.pending(state) - state.inFlight, inFlight: state.inFlight,
                      deadLetters: state.dead.count, counters: state.counters)
        }
    }

    /// The dead letters, oldest first.
    func deadLetters() -> [OutboxRecord] {
        state.withLock { Array($0.dead) }
    }
}
