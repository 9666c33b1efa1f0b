import Logging

/// Spilling: with a store, events past `capacity` wait in the store only.
///
/// The saver decides, for each batch of new events, which stay in memory (up to `capacity`
/// resident events, and only while nothing is spilled, so events keep their order) and which are
/// written as spilled. Spilled events wait in `spillPending` until written: a failed write is
/// retried first on the next pass, in order, and memory stays bounded by `memoryLimit` meanwhile. When memory drains to `lowWater`, the saver takes the oldest spilled events
/// back (`HookOutboxStore.unspill`) before admitting new ones. Spilled events survive a restart
/// like the others: `load` returns the resident ones and the spilled ones wait their turn.
extension HookOutbox {
    /// Resident events at or below which spilled ones are taken back into memory.
    var lowWater: Int { binding.delivery.capacity / 2 }

    /// Splits a new batch into the events kept in memory (appended to `ready` unless `stopping`)
    /// and those to spill, which join `spillPending` for the saver to write. Without a store
    /// every event is kept.
    func admit(_ batch: [OutboxRecord], stopping: Bool) -> [OutboxRecord] {
        guard !batch.isEmpty else { return [] }
        let capacity = binding.delivery.capacity
        let durable = store != nil
        return state.withLock { state in
            let room = !durable ? batch.count : state.spilled > 0 ? 0 : max(capacity - state.resident, 0)
            let kept = Array(batch.prefix(room))
            let spilled = batch.dropFirst(room).map { record in
                var record = record
                record.spilled = true
                return record
            }
            state.resident += kept.count
            state.spilled += spilled.count
            state.spillPending.append(contentsOf: spilled)
            if !stopping { state.ready.append(contentsOf: kept) }
            return kept
        }
    }

    /// The spilled events waiting to be written, oldest first.
    func unwrittenSpill() -> [OutboxRecord] {
        state.withLock { Array($0.spillPending) }
    }

    /// Counts the first `count` events of `spillPending` as written: they leave memory.
    func spillWritten(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            state.spillPending.removeFirst(count)
            stored.add(count, ordering: .relaxed)
        }
    }

    /// Gives up the first `count` events of `spillPending` (their last write, as the node stops,
    /// failed): counted as dropped.
    func dropUnwrittenSpill(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            state.spillPending.removeFirst(count)
            state.spilled -= count
        }
        pending.subtract(count, ordering: .relaxed)
        dropped.add(count, ordering: .relaxed)
    }

    /// Takes the oldest spilled events back into memory when it has drained to `lowWater`: from
    /// the store, or, when none were written there, straight from `spillPending`. Returns how
    /// many, and those taken from `spillPending` (resident now, and not in the store yet).
    func refill(from store: any HookOutboxStore, logger: Logger) async -> (count: Int, unwritten: [OutboxRecord]) {
        let (want, onDisk) = state.withLock { state -> (Int, Int) in
            guard state.spilled > 0, state.resident <= lowWater else { return (0, 0) }
            let onDisk = state.spilled - state.spillPending.count
            let room = binding.delivery.capacity - state.resident
            return (min(room, onDisk > 0 ? onDisk : state.spillPending.count), onDisk)
        }
        guard want > 0 else { return (0, []) }
        if onDisk == 0 {
            let records = state.withLock { state -> [OutboxRecord] in
                let records = state.spillPending.prefix(want).map(Self.resident)
                state.spillPending.removeFirst(records.count)
                state.spilled -= records.count
                state.resident += records.count
                state.ready.append(contentsOf: records)
                return records
            }
            for _ in 0..<min(records.count, binding.delivery.concurrency) { workerBell.ring() }
            return (records.count, records)
        }
        let records: [OutboxRecord]
        do {
            records = try await store.unspill(hook: binding.name, limit: want)
        } catch {
            if shouldReportWriteFailure(nowNanoseconds: clock.nowNanoseconds()) {
                logger.error("hook outbox read of spilled events failed; will try again",
                             metadata: ["hook": "\(binding.name)", "error": "\(error)"])
            }
            return (0, [])
        }
        let vanished = state.withLock { state -> Int in
            state.spilled -= records.count
            state.resident += records.count
            stored.subtract(records.count, ordering: .relaxed)
            state.ready.append(contentsOf: records.map(Self.resident))
            // Fewer than asked: the store holds no more, whatever the count said.
            let left = state.spilled - state.spillPending.count
            guard records.count < want, left > 0 else { return 0 }
            state.spilled -= left
            stored.subtract(left, ordering: .relaxed)
            return left
        }
        if vanished > 0 {
            pending.subtract(vanished, ordering: .relaxed)
            logger.error("hook outbox spilled events missing from the store",
                         metadata: ["hook": "\(binding.name)", "events": "\(vanished)"])
        }
        for _ in 0..<min(records.count, binding.delivery.concurrency) { workerBell.ring() }
        return (records.count, [])
    }

    private static func resident(_ record: OutboxRecord) -> OutboxRecord {
        var record = record
        record.spilled = false
        return record
    }

    /// Counts `count` resident events as settled (delivered or dead); returns whether the saver
    /// should take spilled events back now.
    func settle(_ count: Int, in state: inout State) -> Bool {
        state.resident -= count
        return state.spilled > 0 && state.resident <= lowWater
    }
}
