import Dispatch
import Synchronization

/// Writes history off the request path with group commit.
///
/// `append` only queues the message. A dedicated serial queue commits everything queued in one
/// transaction at most `flushInterval` after the first message of a batch arrived (at once when
/// `maxBatch` messages are waiting or a caller waits for the commit). Publishing therefore never
/// waits for the disk unless it asks to (`append(_:onCommit:)`, strict mode).
///
/// A failed commit (disk full, I/O error) is counted and reported through `onFailure`; its
/// messages are lost from history, the node keeps running and later batches are tried again.
/// A writer that `retainsWhileUnavailable` (default mode on a remote database) keeps a batch whose
/// commit failed with `HistoryError.unavailable` at the head of its queue and tries it again with
/// backoff (see `HistoryWriter+Retry.swift`): nothing acknowledged is lost while the database is
/// away, and `isBacklogFull` bounds what waits.
public final class HistoryWriter: Sendable {
    /// Called when a commit is done: success, or why it failed.
    public typealias Completion = @Sendable (Result<Void, HistoryError>) -> Void

    /// What the writer has done since it started.
    public struct Statistics: Sendable, Equatable {
        /// Messages committed.
        public var committedMessages = 0
        /// Transactions committed.
        public var commits = 0
        /// Transactions that failed.
        public var failedCommits = 0
        /// Messages lost to failed commits.
        public var lostMessages = 0
        /// The most recent failure, if any.
        public var lastError: HistoryError?
        /// Whether the latest commit succeeded (true before the first).
        public var lastCommitSucceeded = true
        /// When the latest failed commit ended (monotonic `DispatchTime` nanoseconds), if any.
        public var lastFailureUptimeNanoseconds: UInt64?
    }

    struct State {
        var pending: [StoredMessage] = []
        var pendingBytes = 0
        /// The bytes of the batch being committed (they count against the bound too).
        var inFlightBytes = 0
        var completions: [Completion] = []
        var scheduled = false
        var immediate = false
        var statistics = Statistics()
        /// Consecutive commits kept for a retry (0: the store is answering).
        var retryAttempt = 0
        /// Whether a retry is scheduled.
        var retryScheduled = false
        /// Set by `close()`: no more retries are scheduled.
        var closed = false
    }

    /// Where messages are committed.
    public let store: any HistoryStore
    /// The longest a queued message waits before its batch is committed, in milliseconds.
    public let flushMilliseconds: Int
    /// A batch this large is committed at once.
    public let maxBatch: Int
    /// Payload and meta bytes queued beyond which `isBacklogFull` (the store is slow or away).
    public let maxPendingBytes: Int
    /// The default `maxPendingBytes`: 256 MiB.
    public static let defaultMaxPendingBytes = 256 << 20
    /// Whether a batch that failed with `HistoryError.unavailable` is kept and tried again
    /// (instead of being lost); strict mode never sets it, its publishes are refused instead.
    public let retainsWhileUnavailable: Bool
    let queue = DispatchQueue(label: "pubnode.history.writer", qos: .userInitiated)
    let state = Mutex(State())
    let onFailure: @Sendable (HistoryError, Int) -> Void
    private let onCommit: (@Sendable (CommitReport) -> Void)?

    /// One commit, as measured for metrics.
    public struct CommitReport: Sendable {
        /// How long the store took, in nanoseconds (monotonic clock).
        public var nanoseconds: UInt64
        /// Messages in the batch.
        public var messages: Int
        /// Whether it was committed.
        public var succeeded: Bool

        /// A commit's figures.
        public init(nanoseconds: UInt64, messages: Int, succeeded: Bool) {
            self.nanoseconds = nanoseconds
            self.messages = messages
            self.succeeded = succeeded
        }
    }

    /// Creates a writer; `onFailure` receives each failed commit's error and the count of messages
    /// it lost (0 for the first failure of an outage whose batch is kept for a retry), `onCommit`
    /// every commit's duration and outcome (on the writer's queue).
    public init(store: any HistoryStore, flushMilliseconds: Int = 10, maxBatch: Int = 2000,
                maxPendingBytes: Int = HistoryWriter.defaultMaxPendingBytes, retainsWhileUnavailable: Bool = false,
                onFailure: @escaping @Sendable (HistoryError, Int) -> Void = { _, _ in },
                onCommit: (@Sendable (CommitReport) -> Void)? = nil) {
        self.store = store
        self.retainsWhileUnavailable = retainsWhileUnavailable
        self.flushMilliseconds = max(0, flushMilliseconds)
        self.maxBatch = max(1, maxBatch)
        self.maxPendingBytes = max(0, maxPendingBytes)
        self.onFailure = onFailure
        self.onCommit = onCommit
    }

    /// Queues `message`; it is committed within the flush interval.
    public func append(_ message: StoredMessage) {
        enqueue(message, completion: nil)
    }

    /// Queues `message` and calls `onCommit` (on the writer's queue) once its batch is committed
    /// or has failed. The batch is committed without waiting for the flush interval.
    public func append(_ message: StoredMessage, onCommit: @escaping Completion) {
        enqueue(message, completion: onCommit)
    }

    /// Queues `message` and blocks the calling thread until its batch is committed or has failed.
    public func appendAndWait(_ message: StoredMessage) -> Result<Void, HistoryError> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, HistoryError>>(.success(()))
        append(message) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    /// Commits everything queued so far and returns once it is committed (or has failed; kept
    /// for a retry when the store is unreachable and the writer `retainsWhileUnavailable`).
    /// Must not be called from the writer's own queue.
    public func flush() {
        queue.sync { drain() }
    }

    /// Runs `work` on the writer's queue, between commits (for the expiry sweep).
    public func perform(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Counters since start.
    public var statistics: Statistics {
        state.withLock { $0.statistics }
    }

    /// Whether the history is failing now: the latest commit failed less than `window` ago. A
    /// failure ages out on its own, so a node taken out of service for it (and so receiving no
    /// publishes to commit) becomes ready again and tries once more.
    public func isFailing(within window: Duration = .seconds(30)) -> Bool {
        let statistics = self.statistics
        guard !statistics.lastCommitSucceeded, let failed = statistics.lastFailureUptimeNanoseconds else { return false }
        return DispatchTime.now().uptimeNanoseconds &- failed < UInt64(window.nanoseconds)
    }

    /// Whether the messages queued or being committed hold `maxPendingBytes` or more: the store
    /// has fallen behind (a remote database away); new messages should be refused.
    public var isBacklogFull: Bool {
        state.withLock { $0.pendingBytes + $0.inFlightBytes >= maxPendingBytes }
    }

    /// Messages queued and not yet committed.
    public var pendingCount: Int {
        state.withLock { $0.pending.count }
    }

    /// The timetoken of the oldest message queued and not yet committed (the write lag's start).
    public var oldestPending: Timetoken? {
        state.withLock { $0.pending.first?.timetoken }
    }

    private enum Schedule { case none, now, later }

    private func enqueue(_ message: StoredMessage, completion: Completion?) {
        let schedule = state.withLock { state -> Schedule in
            state.pending.append(message)
            state.pendingBytes += Self.pendingBytes(message)
            if let completion { state.completions.append(completion) }
            // While the store is away the scheduled retry commits what waits, not each arrival.
            if state.retryAttempt > 0, completion == nil { return .none }
            let urgent = completion != nil || state.pending.count >= maxBatch || flushMilliseconds == 0
            if state.scheduled {
                guard urgent, !state.immediate else { return .none }
                state.immediate = true
                return .now
            }
            state.scheduled = true
            state.immediate = urgent
            return urgent ? .now : .later
        }
        switch schedule {
        case .none: break
        case .now: queue.async { self.drain() }
        case .later: queue.asyncAfter(deadline: .now() + .milliseconds(flushMilliseconds)) { self.drain() }
        }
    }

    /// Commits the queued batch, `maxBatch` messages per transaction; runs on `queue` only.
    func drain() {
        let (batch, completions) = state.withLock { state in
            state.scheduled = false
            state.immediate = false
            let taken = (state.pending, state.completions)
            state.pending = []
            state.inFlightBytes = state.pendingBytes
            state.pendingBytes = 0
            state.completions = []
            return taken
        }
        guard !batch.isEmpty else { return }
        var failure: HistoryError?
        var start = 0
        while start < batch.count {
            let chunk = Array(batch[start..<min(batch.count, start + maxBatch)])
            if case .failure(let error) = commit(chunk) {
                failure = error
                if retainsWhileUnavailable, case .unavailable = error {
                    retain(Array(batch[start...]), after: error)
                    break
                }
                record(failed: chunk.count, error: error)
                onFailure(error, chunk.count)
            }
            start += chunk.count
        }
        state.withLock { $0.inFlightBytes = 0 }
        if failure == nil { recovered() }
        let result: Result<Void, HistoryError> = failure.map { .failure($0) } ?? .success(())
        for completion in completions { completion(result) }
    }

    /// Appends `chunk` to the store, reporting the commit and counting a success.
    private func commit(_ chunk: [StoredMessage]) -> Result<Void, HistoryError> {
        let result: Result<Void, HistoryError>
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            try store.append(chunk)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        if let onCommit {
            let succeeded = if case .success = result { true } else { false }
            onCommit(CommitReport(nanoseconds: DispatchTime.now().uptimeNanoseconds - started, messages: chunk.count,
                                  succeeded: succeeded))
        }
        if case .success = result {
            state.withLock { state in
                state.statistics.lastCommitSucceeded = true
                state.statistics.commits += 1
                state.statistics.committedMessages += chunk.count
            }
        }
        return result
    }

    /// Counts a failed commit; `lost` of its messages are gone from history.
    func record(failed lost: Int, error: HistoryError) {
        state.withLock { state in
            state.statistics.lastCommitSucceeded = false
            state.statistics.lastFailureUptimeNanoseconds = DispatchTime.now().uptimeNanoseconds
            state.statistics.failedCommits += 1
            state.statistics.lostMessages += lost
            state.statistics.lastError = error
        }
    }
}
