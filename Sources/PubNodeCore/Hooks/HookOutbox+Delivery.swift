import DequeModule
import Logging

extension HookOutbox {
    /// One delivery worker: saves new events, attempts ready ones, and sleeps until work or a
    /// retry is due. Runs until `close()`.
    func work(logger: Logger, random: @escaping @Sendable () -> Double) async {
        let clock = ContinuousClock()
        while !state.withLock({ $0.closed }) {
            await saveIncoming(logger: logger)
            let (record, wake) = next(now: clock.now)
            guard let record else {
                let idle = wake.map { clock.now.duration(to: $0) } ?? .seconds(1)
                await doorbell.wait(upTo: min(max(idle, .milliseconds(1)), .seconds(1)))
                continue
            }
            await attempt(record, logger: logger, random: random)
        }
    }

    /// Writes newly queued events to the store, then makes them deliverable. When the store fails
    /// they are still delivered (from memory) and the failure is logged.
    func saveIncoming(logger: Logger) async {
        let records = takeIncoming()
        guard !records.isEmpty else { return }
        if let store {
            do { try await store.save(records) } catch {
                logger.error("hook outbox write failed; events kept in memory only",
                             metadata: ["hook": "\(binding.name)", "events": "\(records.count)", "error": "\(error)"])
            }
        }
        admit(records)
    }

    private func attempt(_ record: OutboxRecord, logger: Logger, random: @escaping @Sendable () -> Double) async {
        let delivery = HookDelivery(id: record.id, hook: binding.name, attempt: record.attempts + 1, body: record.body)
        let handler = self.handler
        do {
            try await Deadline.run(binding.timeout) { try await handler.after(delivery) }
            state.withLock { state in
                state.inFlight -= 1
                state.counters.delivered += 1
            }
            try? await store?.delete(ids: [record.id])
        } catch {
            await failed(record, error: error, logger: logger, random: random)
        }
    }

    private func failed(_ record: OutboxRecord, error: any Error, logger: Logger, random: @escaping @Sendable () -> Double) async {
        var record = record
        record.attempts += 1
        record.lastError = String(describing: error)
        let settings = binding.delivery
        if record.attempts >= settings.maxAttempts {
            record.dead = true
            let discarded = state.withLock { state -> OutboxRecord? in
                state.inFlight -= 1
                state.counters.deadLettered += 1
                state.dead.append(record)
                guard state.dead.count > settings.deadLetterCapacity else { return nil }
                state.counters.discarded += 1
                return state.dead.popFirst()
            }
            logger.warning("hook event dead-lettered", metadata: [
                "hook": "\(binding.name)", "id": "\(record.id)", "attempts": "\(record.attempts)",
                "error": "\(record.lastError ?? "")"])
            try? await store?.save([record])
            if let discarded { try? await store?.delete(ids: [discarded.id]) }
            return
        }
        let delay = Backoff.delay(attempt: record.attempts, base: settings.baseDelay, maximum: settings.maxDelay,
                                  random: random())
        logger.debug("hook delivery failed; will retry", metadata: [
            "hook": "\(binding.name)", "id": "\(record.id)", "attempt": "\(record.attempts)",
            "retryIn": "\(delay)", "error": "\(record.lastError ?? "")"])
        try? await store?.save([record])
        state.withLock { state in
            state.inFlight -= 1
            state.counters.retries += 1
            state.retrying.insert(Entry(record: record, due: ContinuousClock.now + delay))
        }
        doorbell.ring()
    }

    /// Puts dead letters back in the queue (all, or those whose id is in `ids`); returns how many.
    func replay(ids: Set<UInt64>?) async -> Int {
        let revived = state.withLock { state -> [OutboxRecord] in
            var revived: [OutboxRecord] = []
            var kept: [OutboxRecord] = []
            for record in state.dead {
                if ids == nil || ids!.contains(record.id) {
                    var again = record
                    again.dead = false
                    again.attempts = 0
                    revived.append(again)
                } else {
                    kept.append(record)
                }
            }
            state.dead = Deque(kept)
            state.counters.replayed += revived.count
            return revived
        }
        guard !revived.isEmpty else { return 0 }
        try? await store?.save(revived)
        admit(revived)
        doorbell.ring()
        return revived.count
    }

    /// Stops the workers after their current attempt.
    func close() {
        state.withLock { $0.closed = true }
        doorbell.ring()
    }
}
