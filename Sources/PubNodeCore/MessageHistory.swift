/// The node's message history: which keysets keep it, the store, and the group-commit writer.
///
/// `Node.publish` hands every stored message to `record`; the history endpoints read
/// through `fetch`, `count` and `delete`, which first commit whatever is still queued so a client
/// always reads its own acknowledged publishes.
public final class MessageHistory: Sendable {
    /// The store.
    public let store: any HistoryStore
    /// The group-commit writer in front of the store.
    public let writer: HistoryWriter
    /// Strict mode: a publish is acknowledged only once its message is committed.
    public let strict: Bool
    /// Supplies "now" for expiry (and `publishedAt` of messages stored).
    public let clock: TimetokenClock
    private let policies: [String: HistoryPolicy]
    private let createdPolicy: HistoryPolicy?

    /// Creates the history of the keysets in `policies` (by subscribe key); keysets created at run
    /// time keep history under `created` (nil: none). Other keys keep none: the node asks only
    /// about keysets it serves. With `bufferWhileUnavailable` (a remote database), default mode
    /// keeps what the store cannot take while it is unreachable, within `maxPendingBytes`, and
    /// commits it once it is back (strict mode refuses those publishes instead).
    public init(store: any HistoryStore, policies: [String: HistoryPolicy], created: HistoryPolicy? = nil,
                clock: TimetokenClock, flushMilliseconds: Int = 10, strict: Bool = false,
                bufferWhileUnavailable: Bool = false,
                onWriteFailure: @escaping @Sendable (HistoryError, Int) -> Void = { _, _ in },
                onCommit: (@Sendable (HistoryWriter.CommitReport) -> Void)? = nil,
                maxPendingBytes: Int = HistoryWriter.defaultMaxPendingBytes) {
        self.store = store
        self.policies = policies
        self.createdPolicy = created
        self.clock = clock
        self.strict = strict
        self.writer = HistoryWriter(store: store, flushMilliseconds: flushMilliseconds, maxPendingBytes: maxPendingBytes,
                                    retainsWhileUnavailable: bufferWhileUnavailable && !strict,
                                    onFailure: onWriteFailure, onCommit: onCommit)
    }

    /// The policy of a subscribe key, if it keeps history.
    public func policy(_ subscribeKey: String) -> HistoryPolicy? {
        (policies[subscribeKey] ?? createdPolicy).flatMap { $0.enabled ? $0 : nil }
    }

    /// Whether `subscribeKey` keeps history.
    public func isEnabled(_ subscribeKey: String) -> Bool { policy(subscribeKey) != nil }

    /// Stores an accepted message if its keyset keeps history and it asked to be stored.
    ///
    /// Never waits for the disk. In strict mode it returns the commit in flight, which the caller
    /// observes before acknowledging the publish; otherwise nil. While the writer's backlog is full
    /// (the store is away), the message is not queued and a commit already failed with
    /// `HistoryError.unavailable` is returned in either mode: the publish is refused with 503
    /// (delivered live, not stored) instead of memory growing.
    @discardableResult
    public func record(_ message: PublishedMessage, subscribeKey: String) -> PendingCommit? {
        guard message.store, message.kind == .message, let policy = policy(subscribeKey) else { return nil }
        guard !writer.isBacklogFull else {
            let refused = PendingCommit()
            refused.complete(.unavailable("history backlog full (\(writer.maxPendingBytes) bytes waiting for the store)"))
            return refused
        }
        let expiry = policy.expiry(publishedAt: message.publishedAtNanoseconds, ttlHours: message.ttlHours)
        let stored = StoredMessage(message, subscribeKey: subscribeKey, expiresAtNanoseconds: expiry)
        guard strict else {
            writer.append(stored)
            return nil
        }
        let pending = PendingCommit()
        writer.append(stored) { result in
            if case .failure(let error) = result { pending.complete(error) } else { pending.complete(nil) }
        }
        return pending
    }

    /// A page of a channel's history, oldest first.
    public func fetch(subscribeKey: String, channel: String, query: HistoryQuery) throws(PubNodeError) -> [StoredMessage] {
        try readable(subscribeKey)
        do {
            return try store.messages(subscribeKey: subscribeKey, channel: channel, query: query,
                                      now: clock.nowNanoseconds())
        } catch { throw .storageFailed(error.description) }
    }

    /// Messages of a channel newer than `after`, capped at `limit`.
    public func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int) throws(PubNodeError) -> Int {
        try readable(subscribeKey)
        do {
            return try store.count(subscribeKey: subscribeKey, channel: channel, after: after, limit: limit,
                                   now: clock.nowNanoseconds())
        } catch { throw .storageFailed(error.description) }
    }

    /// Deletes a channel's messages in `range`; returns how many.
    @discardableResult
    public func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(PubNodeError) -> Int {
        try readable(subscribeKey)
        do {
            return try store.delete(subscribeKey: subscribeKey, channel: channel, range: range)
        } catch { throw .storageFailed(error.description) }
    }

    /// Removes expired messages in chunks of `chunk`, between the writer's commits; returns how many.
    @discardableResult
    public func sweep(chunk: Int = 10_000) throws(HistoryError) -> Int {
        var total = 0
        while true {
            let removed = try store.expire(now: clock.nowNanoseconds(), limit: chunk)
            total += removed
            if removed < chunk { return total }
        }
    }

    /// Removes expired messages in chunks of `chunk`, each on the writer's queue between its
    /// commits, without blocking the caller's thread; returns how many. The node's periodic
    /// history sweep calls this.
    @discardableResult
    public func sweepExpired(chunk: Int = 10_000) async throws(HistoryError) -> Int {
        var total = 0
        while true {
            let removed = try await expireOnWriterQueue(limit: chunk)
            total += removed
            if removed < chunk { return total }
        }
    }

    /// Removes up to `limit` expired messages on the writer's queue.
    private func expireOnWriterQueue(limit: Int) async throws(HistoryError) -> Int {
        try await onWriterQueue { [store, clock] () throws(HistoryError) in
            try store.expire(now: clock.nowNanoseconds(), limit: limit)
        }
    }

    /// Runs `work` on the writer's queue, between its commits, and returns its result.
    private func onWriterQueue(_ work: @escaping @Sendable () throws(HistoryError) -> Int) async throws(HistoryError) -> Int {
        let result: Result<Int, HistoryError> = await withCheckedContinuation { continuation in
            writer.perform {
                do throws(HistoryError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Deletes every stored message of a deleted keyset, on the writer's queue after what is
    /// queued (so nothing of it is written afterwards); returns how many.
    public func deleteKeyset(_ subscribeKey: String) async throws(HistoryError) -> Int {
        writer.flush()
        return try await onWriterQueue { [store] () throws(HistoryError) in try store.deleteAll(subscribeKey: subscribeKey) }
    }

    /// Commits everything queued (the periodic sweep has stopped before) and stops retrying.
    public func close() {
        writer.close()
    }

    private func readable(_ subscribeKey: String) throws(PubNodeError) {
        guard isEnabled(subscribeKey) else { throw .storageDisabled }
        writer.flush()
    }
}
