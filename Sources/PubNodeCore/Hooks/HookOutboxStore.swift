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

    /// Creates a record.
    public init(id: UInt64, hook: String, body: [UInt8], attempts: Int = 0, createdAtMilliseconds: Int64,
                lastError: String? = nil, dead: Bool = false) {
        self.id = id
        self.hook = hook
        self.body = body
        self.attempts = attempts
        self.createdAtMilliseconds = createdAtMilliseconds
        self.lastError = lastError
        self.dead = dead
    }
}

/// Where the outbox keeps entries so they survive a restart (SQLite when history is enabled).
///
/// Entries are written before their first delivery attempt, rewritten after each failure, and
/// removed once delivered; `load` returns what a previous run left.
public protocol HookOutboxStore: Sendable {
    /// Every entry left, pending and dead.
    func load() throws -> [OutboxRecord]
    /// Writes new entries, or replaces existing ones with the same id.
    func save(_ records: [OutboxRecord]) async throws
    /// Removes delivered or discarded entries.
    func delete(ids: [UInt64]) async throws
}
