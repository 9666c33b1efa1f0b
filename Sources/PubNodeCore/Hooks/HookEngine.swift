import Logging
import Synchronization

/// Runs the configured hooks: before hooks in line with a publish, after hooks through their
/// outboxes, on-request hooks for `/v1/blocks`. With no bindings every entry point is a
/// dictionary miss.
public final class HookEngine: Sendable {
    /// The bindings, in configuration order.
    public let bindings: [HookBinding]
    let index: HookIndex
    let outboxes: [Int: HookOutbox]
    let store: (any HookOutboxStore)?
    let logger: Logger
    let clock: TimetokenClock
    /// What retries, backoff, timeouts and the outboxes' batching wait on.
    let nodeClock: any NodeClock
    let random: @Sendable () -> Double
    private let workers = Mutex<[Task<Void, Never>]>([])
    private let savers = Mutex<[Task<Void, Never>]>([])
    /// Calls in progress per on-request hook, bounded by `maxConcurrentRequests`.
    let requestsInFlight: [String: RequestGauge]

    /// Checks and indexes `bindings`. After events are kept in `store` when given (else in memory
    /// only); ids come from `clock`, so they keep increasing across restarts. Retry backoff,
    /// hook timeouts and the outboxes' waits run on `nodeClock` (tests pass a manual one).
    public init(bindings: [HookBinding], store: (any HookOutboxStore)? = nil, clock: TimetokenClock = TimetokenClock(),
                nodeClock: any NodeClock = SystemNodeClock(),
                logger: Logger = Logger(label: "pubnode.hooks"),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) throws(HookConfigurationError) {
        var names = Set<String>()
        var paths = Set<String>()
        for binding in bindings {
            try binding.validate()
            guard names.insert(binding.name).inserted else { throw HookConfigurationError("hook name '\(binding.name)' is used twice") }
            if binding.trigger == .onRequest {
                for path in binding.channels where !paths.insert(binding.subscribeKey + "/" + path).inserted {
                    throw HookConfigurationError("hook \(binding.name): path '\(path)' is already served by another hook")
                }
            }
        }
        self.bindings = bindings
        self.index = HookIndex(bindings)
        self.store = store
        self.clock = clock
        self.nodeClock = nodeClock
        self.logger = logger
        self.random = random
        var outboxes: [Int: HookOutbox] = [:]
        for (ordinal, binding) in bindings.enumerated() {
            if case .after(let handler) = binding.handler {
                outboxes[ordinal] = HookOutbox(binding: binding, handler: handler, store: store, clock: nodeClock)
            }
        }
        self.outboxes = outboxes
        self.requestsInFlight = Dictionary(uniqueKeysWithValues: bindings.filter { $0.trigger == .onRequest }
            .map { ($0.name, RequestGauge()) })
    }

    /// An engine with no hooks.
    public static func none() -> HookEngine {
        // An empty list always validates.
        try! HookEngine(bindings: [])
    }

    /// True when no hook is configured.
    public var isEmpty: Bool { bindings.isEmpty }

    /// The before hooks that apply to a message of `kind` on `channel`, in order.
    public func beforeHooks(for kind: MessageKind, subscribeKey: String, channel: String) -> [HookBinding] {
        index.matches(.before(kind), subscribeKey: subscribeKey, channel: channel).map { bindings[$0] }
    }

    /// Queues the after event of an accepted message, fire or signal for every hook bound to it.
    public func accepted(_ message: PublishedMessage, action: HookAction, subscribeKey: String) {
        guard !outboxes.isEmpty else { return }
        let trigger = HookTrigger.after(message.kind)
        let matches = index.matches(trigger, subscribeKey: subscribeKey, channel: message.channel)
        guard !matches.isEmpty else { return }
        enqueue(to: matches, channel: message.channel) {
            HookEvent(after: message, action: action, subscribeKey: subscribeKey).body()
        }
    }

    /// The observer to give a keyset's presence tracker, or nil when no presence hook is bound there.
    public func presenceObserver(subscribeKey: String) -> (@Sendable (PresenceEvent) -> Void)? {
        guard index.has(.afterPresence, in: subscribeKey) else { return nil }
        return { [self] event in
            let matches = index.matches(.afterPresence, subscribeKey: subscribeKey, channel: event.channel)
            guard !matches.isEmpty, let hookEvent = HookEvent(presence: event, subscribeKey: subscribeKey) else { return }
            enqueue(to: matches, channel: event.channel) { hookEvent.body() }
        }
    }

    /// Queues one event for each outbox in `matches` with room; the body is rendered only if one has.
    private func enqueue(to matches: [Int], channel: String, body make: () -> [UInt8]) {
        var body: [UInt8]?
        let shard = channel.hashValue
        for ordinal in matches {
            guard let outbox = outboxes[ordinal] else { continue }
            if let refusal = outbox.reserve() {
                // A closed outbox (the node is stopping) counts its drops without a report.
                if refusal != .closed, outbox.shouldReportDrop(nowNanoseconds: clock.nowNanoseconds()) {
                    let delivery = outbox.binding.delivery
                    let dropped = outbox.dropped.load(ordering: .relaxed)
                    if refusal == .memory {
                        logger.error("hook outbox store failing or too slow; events past the memory limit dropped",
                                     metadata: ["hook": "\(outbox.binding.name)", "memoryLimit": "\(outbox.memoryLimit)",
                                                "droppedSinceStart": "\(dropped)"])
                    } else if outbox.store == nil {
                        logger.warning("hook outbox full; events dropped", metadata: [
                            "hook": "\(outbox.binding.name)", "capacity": "\(delivery.capacity)",
                            "droppedSinceStart": "\(dropped)"])
                    } else {
                        logger.error("hook outbox disk budget reached; events dropped", metadata: [
                            "hook": "\(outbox.binding.name)", "capacity": "\(delivery.capacity)",
                            "maxSpilledEvents": "\(delivery.maxSpilledEvents)", "droppedSinceStart": "\(dropped)"])
                    }
                }
                continue
            }
            let bytes = body ?? make()
            body = bytes
            outbox.push(OutboxRecord(id: clock.next().rawValue, hook: outbox.binding.name, body: bytes,
                                     createdAtMilliseconds: Int64(clock.nowNanoseconds() / 1_000_000)), shard: shard)
        }
    }

    /// The on-request hook serving `path` in `subscribeKey`, if any.
    public func requestHook(subscribeKey: String, path: String) -> HookBinding? {
        index.matches(.onRequest, subscribeKey: subscribeKey, channel: path).first.map { bindings[$0] }
    }

    /// Loads what the store kept from a previous run and starts the savers and delivery workers.
    public func start() throws {
        if let store {
            let records = try store.load()
            let summaries = try store.spilled()
            let spilled = summaries.mapValues(\.count)
            // Ids come from the clock: keep new ones above every id still stored.
            if let newest = (records.map(\.id) + summaries.values.map(\.newestID)).max() { _ = clock.advance(to: newest) }
            let byName = Dictionary(uniqueKeysWithValues: outboxes.values.map { ($0.binding.name, $0) })
            var orphans = spilled.filter { byName[$0.key] == nil }.values.reduce(0, +)
            let grouped = Dictionary(grouping: records, by: \.hook)
            for name in Set(grouped.keys).union(spilled.keys) {
                guard let outbox = byName[name] else { orphans += grouped[name]?.count ?? 0; continue }
                outbox.restore((grouped[name] ?? []).sorted { $0.id < $1.id }, spilled: spilled[name] ?? 0)
            }
            let total = records.count + spilled.values.reduce(0, +)
            if total > 0 {
                logger.info("hook outbox restored", metadata: ["events": "\(total - orphans)",
                                                               "spilled": "\(spilled.values.reduce(0, +))",
                                                               "unboundHookEvents": "\(orphans)"])
            }
        }
        let logger = self.logger
        let random = self.random
        var started: [Task<Void, Never>] = []
        var savers: [Task<Void, Never>] = []
        for outbox in outboxes.values {
            savers.append(Task { await outbox.save(logger: logger) })
            for _ in 0..<outbox.binding.delivery.concurrency {
                started.append(Task { await outbox.work(logger: logger, random: random) })
            }
        }
        workers.withLock { $0.append(contentsOf: started) }
        self.savers.withLock { $0.append(contentsOf: savers) }
    }

    /// Stops the delivery workers after their current attempts, then saves what is still queued
    /// (kept in the store for the next start).
    public func shutdown() async {
        for outbox in outboxes.values { outbox.close() }
        let tasks = workers.withLock { workers in
            defer { workers = [] }
            return workers
        }
        for task in tasks { await task.value }
        for outbox in outboxes.values { outbox.stopSaver() }
        let savers = self.savers.withLock { savers in
            defer { savers = [] }
            return savers
        }
        for task in savers { await task.value }
    }

    /// Each after hook's queue and counters, in configuration order.
    public func stats() -> [HookStats] {
        outboxes.sorted { $0.key < $1.key }.map { $0.value.stats() }
    }

    /// The dead letters of `hook` (or of every hook), oldest first, at most `limit`.
    public func deadLetters(hook: String? = nil, limit: Int = .max) -> [OutboxRecord] {
        Array(outboxes.sorted { $0.key < $1.key }.map(\.value)
            .filter { hook == nil || $0.binding.name == hook }
            .flatMap { $0.deadLetters(limit: limit) }
            .prefix(limit))
    }

    /// Queues dead letters again (of `hook`, or of every hook; only `ids` when given); returns how many.
    public func replay(hook: String? = nil, ids: Set<UInt64>? = nil) async -> Int {
        var total = 0
        for outbox in outboxes.values where hook == nil || outbox.binding.name == hook {
            total += await outbox.replay(ids: ids)
        }
        return total
    }

    /// True when `name` is an after hook (the admin endpoints' check).
    public func hasAfterHook(named name: String) -> Bool {
        outboxes.values.contains { $0.binding.name == name }
    }
}

/// Counts one on-request hook's calls in progress.
final class RequestGauge: Sendable {
    let value = Atomic<Int>(0)
}
