import DequeModule
import HeapModule
import Synchronization

/// The queue of one after hook: new events, retries waiting for their time, and dead letters.
///
/// Publishers only reserve a slot (one atomic add against the capacity) and append to one of
/// several incoming shards chosen by channel, so a keyset-wide hook is not a single lock every
/// publish meets. A saver task moves incoming events to the store in batches (written before the
/// first attempt, so they survive a restart) and hands them to the delivery workers; delivered
/// events are deleted in batches by the same task. The consumer side sits behind `state`.
///
/// With a store, events past `capacity` are not kept in memory: the saver writes them as spilled
/// and takes them back, oldest first, when memory drains (`HookOutbox+Spill.swift`); only past
/// `maxSpilledEvents` more are events dropped. Without a store they are dropped past `capacity`.
/// Events in memory (resident, waiting to be spilled, incoming) stay within `memoryLimit`
/// whatever the store does: a failing or slow store makes new events drop, never memory grow.
final class HookOutbox: Sendable {
    struct Entry: Sendable, Comparable {
        var record: OutboxRecord
        /// When the retry falls due: nanoseconds of the node clock.
        var due: UInt64

        static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.due < rhs.due }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.record.id == rhs.record.id && lhs.due == rhs.due }
    }

    struct State {
        var ready: Deque<OutboxRecord> = []
        var retrying = Heap<Entry>()
        var dead: Deque<OutboxRecord> = []
        var deliveredIDs: [UInt64] = []
        /// Events the workers delivered or wrote themselves since the saver's last pass.
        var settledIDs: Set<UInt64> = []
        /// New states of records (failed attempts, dead letters, replays) for the saver to write.
        var rewrites: [OutboxRecord] = []
        var inFlight = 0
        var counters = HookStats.Counters()
        /// Events held in memory: ready, waiting for a retry or in flight (not dead letters).
        var resident = 0
        /// Events waiting in the store only or to be written there (`spillPending`); while there
        /// are any, new events are spilled too, so they are delivered after the older ones.
        var spilled = 0
        /// Spilled events not written yet (their write failed or is due), oldest first: retried
        /// first on the saver's next pass, and still held in memory until written.
        var spillPending: Deque<OutboxRecord> = []
    }

    static let shardCount = 8

    let binding: HookBinding
    let handler: any AfterHookHandler
    let store: (any HookOutboxStore)?
    /// What retries, the saver's gathering and idle waits are timed by.
    let clock: any NodeClock
    let state = Mutex(State())
    /// Events accepted and not yet delivered, dead-lettered or dropped (incoming, being saved,
    /// ready, waiting for a retry, or in flight): what the capacity bounds.
    let pending = Atomic<Int>(0)
    let enqueued = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    /// Spilled events written to the store (`spilled` less `spillPending`): the share of
    /// `pending` not held in memory.
    let stored = Atomic<Int>(0)
    let lastDropReport = Atomic<Int>(0)
    let lastWriteFailureReport = Atomic<Int>(0)
    let saverAsleep = Atomic<Bool>(false)
    /// Set by `close()`: no new events, workers finish their attempt and stop.
    let closed = Atomic<Bool>(false)
    /// Set once the workers have stopped: the saver makes its last pass and stops.
    let saverStopping = Atomic<Bool>(false)
    private let incoming: [IncomingShard]
    let saverBell: Doorbell
    let workerBell: Doorbell

    init(binding: HookBinding, handler: any AfterHookHandler, store: (any HookOutboxStore)?, clock: any NodeClock) {
        self.binding = binding
        self.handler = handler
        self.store = store
        self.clock = clock
        self.saverBell = Doorbell(clock: clock)
        self.workerBell = Doorbell(clock: clock)
        self.incoming = (0..<Self.shardCount).map { _ in IncomingShard() }
    }

    /// Events accepted at most: `capacity` in memory, plus `maxSpilledEvents` in the store.
    var limit: Int {
        let delivery = binding.delivery
        guard store != nil else { return delivery.capacity }
        return delivery.maxSpilledEvents > Int.max - delivery.capacity ? Int.max : delivery.capacity + delivery.maxSpilledEvents
    }

    /// Events held in memory at most (resident, waiting to be spilled, incoming): `capacity`
    /// without a store, twice that with one, so a store that fails or stalls never lets memory
    /// grow toward `limit`.
    var memoryLimit: Int {
        let capacity = binding.delivery.capacity
        guard store != nil else { return capacity }
        return capacity > Int.max / 2 ? Int.max : capacity * 2
    }

    /// Why `reserve()` refused an event.
    enum Refusal: Equatable {
        /// Closed: the node is stopping.
        case closed
        /// `limit` reached: memory and, with a store, the spilled rows are full.
        case full
        /// `memoryLimit` reached while the store holds fewer than `maxSpilledEvents`: its writes
        /// fail or lag behind.
        case memory
    }

    /// Takes a slot for one event; nil when taken, else why not (counted as dropped).
    func reserve() -> Refusal? {
        let now = pending.add(1, ordering: .relaxed).newValue
        var refusal: Refusal?
        if closed.load(ordering: .relaxed) {
            refusal = .closed
        } else if now > limit {
            refusal = .full
        } else if now - stored.load(ordering: .relaxed) > memoryLimit {
            refusal = .memory
        }
        if refusal != nil {
            pending.subtract(1, ordering: .relaxed)
            dropped.add(1, ordering: .relaxed)
        }
        return refusal
    }

    /// Queues an event whose slot was reserved; `shard` spreads publishers over the incoming locks.
    func push(_ record: OutboxRecord, shard: Int) {
        incoming[shard & (Self.shardCount - 1)].records.withLock { $0.append(record) }
        enqueued.add(1, ordering: .relaxed)
        if saverAsleep.load(ordering: .sequentiallyConsistent),
           saverAsleep.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged {
            saverBell.ring()
        }
    }

    /// Puts back what a previous run left: pending entries become ready, dead ones stay dead,
    /// and `spilled` more wait in the store.
    func restore(_ records: [OutboxRecord], spilled: Int = 0) {
        let live = records.filter { !$0.dead }.count
        pending.add(live + spilled, ordering: .relaxed)
        stored.add(spilled, ordering: .relaxed)
        state.withLock { state in
            state.resident += live
            state.spilled += spilled
            for record in records {
                if record.dead { state.dead.append(record) } else { state.ready.append(record) }
            }
        }
    }

    /// True when no incoming event waits to be saved.
    func incomingIsEmpty() -> Bool {
        incoming.allSatisfy { $0.records.withLock { $0.isEmpty } }
    }

    /// Every queued incoming event, oldest first within each shard.
    func takeIncoming() -> [OutboxRecord] {
        var batch: [OutboxRecord] = []
        for shard in incoming {
            shard.records.withLock { records in
                batch.append(contentsOf: records)
                records.removeAll(keepingCapacity: true)
            }
        }
        return batch
    }

    /// Up to `limit` events to attempt at `now` (nanoseconds of the node clock; due retries first,
    /// as they are the older), or when the next retry falls due. A retry due further away than the
    /// longest backoff is due now: the wall clock was set back since it was scheduled.
    func next(now: UInt64, limit: Int) -> (records: [OutboxRecord], wake: UInt64?) {
        let latest = now &+ UInt64(max(binding.delivery.maxDelay.nanoseconds, 0))
        return state.withLock { state in
            var records: [OutboxRecord] = []
            while records.count < limit, let first = state.retrying.min, first.due <= now || first.due > latest {
                records.append(state.retrying.removeMin().record)
            }
            while records.count < limit, let record = state.ready.popFirst() {
                records.append(record)
            }
            state.inFlight += records.count
            return (records, records.isEmpty ? state.retrying.min?.due : nil)
        }
    }

    /// A snapshot of the queue and counters.
    func stats() -> HookStats {
        var (inFlight, deadCount, spilled, counters) = state.withLock {
            ($0.inFlight, $0.dead.count, $0.spilled, $0.counters)
        }
        counters.enqueued = enqueued.load(ordering: .relaxed)
        counters.dropped = dropped.load(ordering: .relaxed)
        return HookStats(name: binding.name, trigger: binding.trigger, target: binding.target,
                         pending: max(pending.load(ordering: .relaxed) - inFlight, 0), spilled: spilled,
                         inFlight: inFlight, deadLetters: deadCount, counters: counters)
    }

    /// The dead letters, oldest first, at most `limit`.
    func deadLetters(limit: Int) -> [OutboxRecord] {
        state.withLock { Array($0.dead.prefix(limit)) }
    }

    /// True at most once per `interval` nanoseconds of `now`: whether a drop should be logged.
    func shouldReportDrop(nowNanoseconds now: UInt64, interval: UInt64 = 10_000_000_000) -> Bool {
        Self.once(per: interval, now: now, last: lastDropReport)
    }

    /// True at most once per `interval` nanoseconds of `now`: whether a failed write should be logged.
    func shouldReportWriteFailure(nowNanoseconds now: UInt64, interval: UInt64 = 10_000_000_000) -> Bool {
        Self.once(per: interval, now: now, last: lastWriteFailureReport)
    }

    private static func once(per interval: UInt64, now: UInt64, last report: borrowing Atomic<Int>) -> Bool {
        let slot = Int(now / interval) + 1
        let last = report.load(ordering: .relaxed)
        guard slot > last else { return false }
        return report.compareExchange(expected: last, desired: slot, ordering: .relaxed).exchanged
    }
}

/// One lock's share of an outbox's incoming events.
final class IncomingShard: Sendable {
    let records = Mutex<[OutboxRecord]>([])
}
