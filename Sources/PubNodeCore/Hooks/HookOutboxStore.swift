/// One outbox entry as kept durably: an after event waiting for delivery, or dead-lettered.
public struct OutboxRecord: Sendable, Equatable {
    /// Unique identifier, also sent to receivers for deduplication.
    public var id: UInt64
    /// The hook it is for.
    public var hook: String
    /// The event's JSON text.
    public var body: [UInt8]
    /// Attempts made so far.
    public var attempts: Int
    /// Unix milliseconds when it was first queued.
    public var createdAtMilliseconds: Int64
    /// The last failure, if any.
    public var lastError: String?
    /// True once retries are exhausted: it waits for an operator's replay.
    public var dead: Bool
    /// True while it waits in the store only, past the outbox's in-memory capacity.
    public var spilled: Bool

    /// Creates a record.
    public init(id: UInt64, hook: String, body: [UInt8], attempts: Int = 0, createdAtMilliseconds: Int64,
                lastError: String? = nil, dead: Bool = false, spilled: Bool = false) {
        self.id = id
        self.hook = hook
        self.body = body
        self.attempts = attempts
        self.createdAtMilliseconds = createdAtMilliseconds
        self.lastError = lastError
        self.dead = dead
        self.spilled = spilled
    }
}

/// Where the outbox keeps entries so they survive a restart (SQLite when history is enabled).
///
/// Entries are written before their first delivery attempt, rewritten after each failure, and
/// removed once delivered; `load` returns what a previous run kept in memory. Events past an
/// outbox's in-memory capacity are written as spilled and wait in the store only, until
/// `unspill` takes them back, oldest first.
public protocol HookOutboxStore: Sendable {
    /// Every entry left that is not spilled, pending and dead.
    func load() throws -> [OutboxRecord]
    /// Each hook's spilled entries, by hook name.
    func spilled() throws -> [String: SpilledEvents]
    /// Up to `limit` of `hook`'s oldest spilled entries (by id), marked as no longer spilled.
    func unspill(hook: String, limit: Int) async throws -> [OutboxRecord]
    /// Writes new entries, or replaces existing ones with the same id.
    func save(_ records: [OutboxRecord]) async throws
    /// Removes delivered or discarded entries.
    func delete(ids: [UInt64]) async throws
}

/// What a store holds of one hook's spilled events.
public struct SpilledEvents: Sendable, Equatable {
    /// How many.
    public var count: Int
    /// The newest one's id.
    public var newestID: UInt64

    /// Creates a summary.
    public init(count: Int, newestID: UInt64) {
        self.count = count
        self.newestID = newestID
    }
}
