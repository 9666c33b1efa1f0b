import Logging

/// Spilling: with a store, events past `capacity` wait in the store only.
///
/// The saver decides, for each batch of new events, which stay in memory (up to `capacity`
/// resident events, and only while nothing is spilled, so events keep their order) and which are
/// written as spilled. When memory drains to `lowWater`, the saver takes the oldest spilled events
/// back (`HookOutboxStore.unspill`) before admitting new ones. Spilled events survive a restart
/// like the others: `load` returns the resident ones and the spilled ones wait their turn.
extension HookOutbox {
    /// Resident events at or below which spilled ones are taken back into memory.
    var lowWater: Int { binding.delivery.capacity / 2 }

    /// Splits a new batch into the events kept in memory (appended to `ready` unless `stopping`)
    /// and those to write as spilled. Without a store every event is kept.
    func admit(_ batch: [OutboxRecord], stopping: Bool) -> (kept: [OutboxRecord], spilled: [OutboxRecord]) {
        guard !batch.isEmpty else { return ([], []) }
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
            if !stopping { state.ready.append(contentsOf: kept) }
            return (kept, spilled)
        }
    }

    /// Takes spilled events back after their write failed: they stay in memory, past `capacity`,
    /// rather than being lost.
    func keepInMemory(_ records: [OutboxRecord], logger: Logger) {
        guard !records.isEmpty else { return }
        state.withLock { state in
            state.spilled -= records.count
            state.resident += records.count
            state.ready.append(contentsOf: records.map { record in
                var record = record
                record.spilled = false
                return record
            })
        }
        logger.error("hook outbox spill failed; events kept in memory past capacity",
                     metadata: ["hook": "\(binding.name)", "events": "\(records.count)"])
    }

    /// Takes the oldest spilled events back into memory when it has drained to `lowWater`;
    /// returns how many.
    func refill(from store: any HookOutboxStore, logger: Logger) async -> Int {
        let want = state.withLock { state -> Int in
            guard state.spilled > 0, state.resident <= lowWater else { return 0 }
            return min(binding.delivery.capacity - state.resident, state.spilled)
        }
        guard want > 0 else { return 0 }
        let records: [OutboxRecord]
        do {
            records = try await store.unspill(hook: binding.name, limit: want)
        } catch {
            logger.error("hook outbox read of spilled events failed; will try again",
                         metadata: ["hook": "\(binding.name)", "error": "\(error)"])
            return 0
        }
        let vanished = state.withLock { state -> Int in
            state.spilled -= records.count
            state.resident += records.count
            state.ready.append(contentsOf: records.map { record in
                var record = record
                record.spilled = false
                return record
            })
            // Fewer than asked: the store holds no more, whatever the count said.
            guard records.count < want, state.spilled > 0 else { return 0 }
            defer { state.spilled = 0 }
            return state.spilled
        }
        if vanished > 0 {
            pending.subtract(vanished, ordering: .relaxed)
            logger.error("hook outbox spilled events missing from the store",
                         metadata: ["hook": "\(binding.name)", "events": "\(vanished)"])
        }
        for _ in 0..<min(records.count, binding.delivery.concurrency) { workerBell.ring() }
        return records.count
    }

    /// Counts `count` resident events as settled (delivered or dead); returns whether the saver
    /// should take spilled events back now.
    func settle(_ count: Int, in state: inout State) -> Bool {
        state.resident -= count
        return state.spilled > 0 && state.resident <= lowWater
    }
}
