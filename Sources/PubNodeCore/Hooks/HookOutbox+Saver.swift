import Logging

extension HookOutbox {
    /// How long a busy saver lets new events gather before its next pass.
    static let gatherInterval: Duration = .milliseconds(2)

    /// What a failed write leaves for the saver's next pass.
    private struct Carried {
        /// New states of records, written before the next pass's own.
        var rewrites: [OutboxRecord] = []
        /// Whether the last write failed (a recovery is logged once).
        var failing = false
    }

    /// The saver: hands newly queued events to the workers at once, and writes those still
    /// undelivered one pass later (within a few milliseconds) to the store in a batch, so a fast
    /// receiver's events are never written at all; it deletes delivered ones in batches too.
    /// Spilled events are written in the same batch; when that fails they stay in `spillPending`
    /// and are written first on the next pass, as is the rest of the failed batch. Without a store
    /// it only hands events on. Runs until `stopSaver()`, then makes a last pass so nothing
    /// accepted and undelivered is left unsaved; what that pass cannot write is counted as dropped.
    func save(logger: Logger) async {
        var unsaved: [OutboxRecord] = []
        var carried = Carried()
        while true {
            let stopping = saverStopping.load(ordering: .sequentiallyConsistent)
            // Spilled events are older than new ones: they come back first.
            var refilled = (count: 0, unwritten: [OutboxRecord]())
            if let store, !stopping { refilled = await refill(from: store, logger: logger) }
            let batch = takeIncoming()
            let kept = admit(batch, stopping: stopping)
            if !kept.isEmpty, !stopping {
                for _ in 0..<min(kept.count, binding.delivery.concurrency) { workerBell.ring() }
            }
            var busy = !batch.isEmpty || refilled.count > 0
            if let store {
                // What was handed on one pass ago and is still undelivered gets written now.
                let (delivered, settled, rewrites) = state.withLock { state in
                    defer {
                        state.deliveredIDs.removeAll()
                        state.settledIDs.removeAll()
                        state.rewrites.removeAll()
                    }
                    return (state.deliveredIDs, state.settledIDs, state.rewrites)
                }
                let unsavedIDs = Set(unsaved.map(\.id))
                let deliveredIDs = Set(delivered)
                let fresh = refilled.unwritten + kept
                // Written in this order in one transaction: a worker's newer copy wins.
                let residents = unsaved.filter { !settled.contains($0.id) }
                var toSave = residents + carried.rewrites.filter { !deliveredIDs.contains($0.id) } + rewrites
                let deleting = delivered.filter { !unsavedIDs.contains($0) }
                let spill = unwrittenSpill()
                if stopping {
                    toSave += fresh
                    if await !write(toSave, deleting: deleting, to: store, carried: &carried, logger: logger) {
                        let lost = residents.count + fresh.count
                        dropped.add(lost, ordering: .relaxed)
                        logger.error("hook outbox could not save undelivered events as it stopped; they are lost",
                                     metadata: ["hook": "\(binding.name)", "events": "\(lost)"])
                    }
                    if !spill.isEmpty {
                        if await write(spill, deleting: [], to: store, carried: &carried, logger: logger) {
                            spillWritten(spill.count)
                        } else {
                            dropUnwrittenSpill(spill.count)
                            logger.error("hook outbox could not write spilled events as it stopped; they are lost",
                                         metadata: ["hook": "\(binding.name)", "events": "\(spill.count)"])
                        }
                    }
                    return
                }
                let saved = await write(toSave + spill, deleting: deleting, to: store, carried: &carried, logger: logger)
                busy = busy || !delivered.isEmpty || !rewrites.isEmpty || !spill.isEmpty
                if saved {
                    spillWritten(spill.count)
                    carried.rewrites = []
                    // A worker may already have settled (delivered, retried or dead-lettered) an
                    // event of this batch: its outcome was just written, so its stale copy is not
                    // kept for the next pass, which would overwrite that outcome.
                    unsaved = fresh.filter { !settled.contains($0.id) }
                } else {
                    // Nothing of the batch was written: all of it is tried again next pass.
                    carried.rewrites = toSave.dropFirst(residents.count).filter { !deliveredIDs.contains($0.id) }
                    unsaved = residents + fresh.filter { !settled.contains($0.id) }
                }
            }
            if stopping { return }
            if busy || !unsaved.isEmpty {
                // Busy: let events gather for a moment (publishers do not ring while the saver is
                // awake), so each pass handles a batch instead of waking up per event. A replay,
                // a drained memory with events spilled, or `stopSaver()` rings the bell and ends
                // the pause early.
                await saverBell.wait(upTo: Self.gatherInterval)
                continue
            }
            saverAsleep.store(true, ordering: .sequentiallyConsistent)
            if incomingIsEmpty() {
                await saverBell.wait(upTo: .milliseconds(50))
            }
            saverAsleep.store(false, ordering: .sequentiallyConsistent)
        }
    }

    /// Writes `records` and deletes `ids`; returns whether the records were written. Failures
    /// are logged at most once per 10 seconds, and the first success after them once.
    private func write(_ records: [OutboxRecord], deleting ids: [UInt64], to store: any HookOutboxStore,
                       carried: inout Carried, logger: Logger) async -> Bool {
        var saved = true
        if !records.isEmpty {
            do {
                try await store.save(records)
                if carried.failing {
                    carried.failing = false
                    logger.notice("hook outbox writes succeed again", metadata: [
                        "hook": "\(binding.name)", "events": "\(records.count)",
                        "droppedSinceStart": "\(dropped.load(ordering: .relaxed))"])
                }
            } catch {
                saved = false
                carried.failing = true
                if shouldReportWriteFailure(nowNanoseconds: clock.nowNanoseconds()) {
                    let unwritten = state.withLock { $0.spillPending.count }
                    logger.error("hook outbox write failed; will try again, newer events are dropped past the memory limit",
                                 metadata: ["hook": "\(binding.name)", "events": "\(records.count)",
                                            "spillUnwritten": "\(unwritten)", "memoryLimit": "\(memoryLimit)",
                                            "error": "\(error)"])
                }
            }
        }
        if !ids.isEmpty {
            do { try await store.delete(ids: ids) } catch {
                logger.error("hook outbox delete failed; delivered events may be sent again after a restart",
                             metadata: ["hook": "\(binding.name)", "events": "\(ids.count)", "error": "\(error)"])
            }
        }
        return saved
    }
}
