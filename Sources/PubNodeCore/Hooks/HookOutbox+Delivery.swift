import DequeModule
import Logging

extension HookOutbox {
    /// One delivery worker: attempts ready events and due retries (up to `maxBatch` at a time),
    /// and sleeps until work arrives or a retry falls due. Runs until `close()`.
    func work(logger: Logger, random: @escaping @Sendable () -> Double) async {
        while !closed.load(ordering: .sequentiallyConsistent) {
            let now = clock.nowNanoseconds()
            let (records, wake) = next(now: now, limit: binding.delivery.maxBatch)
            guard !records.isEmpty else {
                let idle = wake.map { Duration.nanoseconds(Int64(clamping: $0 > now ? $0 - now : 0)) } ?? .seconds(1)
                await workerBell.wait(upTo: min(max(idle, .milliseconds(1)), .seconds(1)))
                continue
            }
            await attempt(records, logger: logger, random: random)
        }
    }

    private func attempt(_ records: [OutboxRecord], logger: Logger, random: @escaping @Sendable () -> Double) async {
        let deliveries = records.map {
            HookDelivery(id: $0.id, hook: binding.name, attempt: $0.attempts + 1, body: $0.body)
        }
        let handler = self.handler
        let batched = binding.delivery.maxBatch > 1
        let call: @Sendable () async throws -> Void = {
            if batched { try await handler.after(batch: deliveries) } else { try await handler.after(deliveries[0]) }
        }
        do {
            if binding.enforcesTimeout { try await call() } else { try await Deadline.run(binding.timeout, on: clock, call) }
            let refill = state.withLock { state in
                state.inFlight -= records.count
                state.counters.delivered += records.count
                if store != nil {
                    state.deliveredIDs.append(contentsOf: records.map(\.id))
                    state.settledIDs.formUnion(records.map(\.id))
                }
                return settle(records.count, in: &state)
            }
            pending.subtract(records.count, ordering: .relaxed)
            if refill { saverBell.ring() }
        } catch {
            for record in records { await failed(record, error: error, logger: logger, random: random) }
        }
    }

    /// Records a failed attempt: scheduled for a retry or, when attempts are used up, kept as a
    /// dead letter; the saver writes the new state (it is the store's only writer, so writes
    /// land in the order they happened).
    private func failed(_ record: OutboxRecord, error: any Error, logger: Logger, random: @escaping @Sendable () -> Double) async {
        var record = record
        record.attempts += 1
        record.lastError = (error as? HookFailure)?.description ?? String(describing: error)
        let settings = binding.delivery
        record.dead = record.attempts >= settings.maxAttempts
        let rewrite = { (state: inout State) in
            guard self.store != nil else { return }
            state.settledIDs.insert(record.id)
            state.rewrites.append(record)
        }
        if record.dead {
            let refill = state.withLock { state in
                rewrite(&state)
                state.inFlight -= 1
                state.counters.deadLettered += 1
                state.dead.append(record)
                if state.dead.count > settings.deadLetterCapacity, let oldest = state.dead.popFirst() {
                    state.counters.discarded += 1
                    if store != nil { state.deliveredIDs.append(oldest.id) }
                }
                return settle(1, in: &state)
            }
            pending.subtract(1, ordering: .relaxed)
            if refill { saverBell.ring() }
            logger.warning("hook event dead-lettered", metadata: [
                "hook": "\(binding.name)", "id": "\(record.id)", "attempts": "\(record.attempts)",
                "error": "\(record.lastError ?? "")"])
            return
        }
        let delay = Backoff.delay(attempt: record.attempts, base: settings.baseDelay, maximum: settings.maxDelay,
                                  random: random())
        logger.debug("hook delivery failed; will retry", metadata: [
            "hook": "\(binding.name)", "id": "\(record.id)", "attempt": "\(record.attempts)",
            "retryIn": "\(delay)", "error": "\(record.lastError ?? "")"])
        state.withLock { state in
            rewrite(&state)
            state.inFlight -= 1
            state.counters.retries += 1
            state.retrying.insert(Entry(record: record, due: clock.nowNanoseconds() &+ UInt64(max(delay.nanoseconds, 0))))
        }
    }

    /// Puts dead letters back in the queue (all, or those whose id is in `ids`); returns how many.
    func replay(ids: Set<UInt64>?) async -> Int {
        let revived = state.withLock { state -> [OutboxRecord] in
            var revived: [OutboxRecord] = []
            var kept = Deque<OutboxRecord>()
            for record in state.dead {
                if let ids, !ids.contains(record.id) {
                    kept.append(record)
                } else {
                    var again = record
                    again.dead = false
                    again.attempts = 0
                    revived.append(again)
                }
            }
            state.dead = kept
            state.counters.replayed += revived.count
            return revived
        }
        guard !revived.isEmpty else { return 0 }
        pending.add(revived.count, ordering: .relaxed)
        state.withLock { state in
            if store != nil { state.rewrites.append(contentsOf: revived) }
            state.resident += revived.count
            state.ready.append(contentsOf: revived)
        }
        if saverAsleep.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged {
            saverBell.ring()
        }
        for _ in 0..<min(revived.count, binding.delivery.concurrency) { workerBell.ring() }
        return revived.count
    }

    /// Refuses new events and stops the workers after their current attempt.
    func close() {
        closed.store(true, ordering: .sequentiallyConsistent)
        workerBell.ringAll()
    }

    /// Lets the saver make its last pass (after the workers have stopped) and stop.
    func stopSaver() {
        saverStopping.store(true, ordering: .sequentiallyConsistent)
        saverBell.ringAll()
    }
}
