import PubNodeCore

extension ExportedSeries {
    /// Per-keyset counters, channels, groups and occupancy.
    mutating func exportKeysets(_ statistics: NodeStatistics) {
        for keyset in statistics.keysets {
            let key = [("keyset", keyset.subscribeKey)]
            let counts = keyset.counters
            for (kind, total) in [("message", counts.messages), ("signal", counts.signals), ("fire", counts.fires)] {
                counter("pubnode_messages_published_total", "Messages, signals and fires accepted.",
                        key + [("kind", kind)], total: total)
            }
            counter("pubnode_messages_delivered_total", "Messages written to subscribers (one per subscriber).",
                    key, total: counts.deliveries)
            counter("pubnode_buffer_gaps_total", "Catch-ups whose cursor was older than a message the buffer had dropped.",
                    key, total: counts.bufferGaps)
            gauge("pubnode_channels", "Channels with state (buffer, subscribers or groups).", key, Double(keyset.broker.channels))
            gauge("pubnode_channel_groups", "Channel groups with members.", key, Double(keyset.broker.groups))
            gauge("pubnode_presence_occupancy", "Uuids present, summed over channels.", key, Double(keyset.occupancy))
        }
        let totals = statistics.totals
        rateLimited("keyset_publish", totals.publishRefusals)
        rateLimited("keyset_request", totals.requestRefusals)
    }

    /// Refusals by a rate limit.
    mutating func rateLimited(_ scope: String, _ total: Int) {
        counter("pubnode_rate_limited_total", "Requests refused by a rate limit (429).", [("scope", scope)], total: total)
    }

    /// Each after hook's outbox.
    mutating func exportHooks(_ hooks: [HookStats]) {
        for hook in hooks {
            let key = [("hook", hook.name)]
            gauge("pubnode_hook_pending", "Hook events waiting (new or for a retry).", key, Double(hook.pending))
            gauge("pubnode_hook_in_flight", "Hook deliveries in progress.", key, Double(hook.inFlight))
            gauge("pubnode_hook_dead_letters", "Hook dead letters kept.", key, Double(hook.deadLetters))
            gauge("pubnode_hook_spilled", "Hook events waiting on disk past the in-memory capacity.", key,
                  Double(hook.spilled))
            let c = hook.counters
            counter("pubnode_hook_delivered_total", "Hook events delivered.", key, total: c.delivered)
            counter("pubnode_hook_retries_total", "Failed hook attempts followed by a retry.", key, total: c.retries)
            counter("pubnode_hook_dropped_total", "Hook events refused because the queue was full.", key, total: c.dropped)
            counter("pubnode_hook_dead_lettered_total", "Hook events whose attempts ran out.", key, total: c.deadLettered)
        }
    }

    /// Connections, parked polls, readiness and the per-client limits' refusals.
    mutating func exportServer(operations: Operations, clientLimits: ClientLimitsStats) {
        gauge("pubnode_open_connections", "Open HTTP connections.", [], Double(operations.gauges.openConnections))
        gauge("pubnode_parked_polls", "Subscribe long-polls parked.", [], Double(operations.gauges.parkedPolls))
        gauge("pubnode_ready", "1 while the node is ready for traffic.", [], operations.readiness.reasons.isEmpty ? 1 : 0)
        rateLimited("client_connection", clientLimits.refusedConnections)
        rateLimited("node_connection", operations.gauges.refusedConnections)
        counter("pubnode_accept_failures_total", "Accepts that failed (descriptors or memory exhausted); the listener pauses.",
                total: operations.gauges.failedAccepts)
        rateLimited("client_request", clientLimits.refusedRequests)
        rateLimited("client_parked", clientLimits.refusedPolls)
    }

    /// The history writer's queue and lag.
    mutating func exportHistory(_ history: MessageHistory?, nowSeconds: Double) {
        guard let writer = history?.writer else { return }
        gauge("pubnode_history_pending_writes", "Messages queued for history and not yet committed.", [],
              Double(writer.pendingCount))
        let lag = writer.oldestPending.map { max(0, nowSeconds - Double($0.rawValue) / 1e7) } ?? 0
        gauge("pubnode_history_write_lag_seconds", "Age of the oldest message not yet committed to history.", [], lag)
    }

    /// The process' memory, CPU and descriptors, and when it started.
    mutating func exportProcess(_ process: ProcessStatistics, startedAt: Double) {
        gauge("pubnode_start_time_seconds", "When the node started, in Unix seconds.", [], startedAt)
        if let resident = process.residentBytes {
            gauge("process_resident_memory_bytes", "Resident memory size in bytes.", [], Double(resident))
        }
        if let cpu = process.cpuSeconds {
            counter("process_cpu_seconds_total", "User and system CPU time spent in seconds.", seconds: cpu)
        }
        if let fds = process.openFileDescriptors {
            gauge("process_open_fds", "Open file descriptors.", [], Double(fds))
        }
    }
}
