/// What one hook's outbox holds and has done since start-up.
public struct HookStats: Sendable, Equatable {
    /// Counters since start-up.
    public struct Counters: Sendable, Equatable {
        /// Events accepted into the queue.
        public var enqueued = 0
        /// Events delivered.
        public var delivered = 0
        /// Failed attempts followed by a retry.
        public var retries = 0
        /// Events refused because the queue was full: past `capacity` without a store, past
        /// `capacity` plus `maxSpilledEvents` with one.
        public var dropped = 0
        /// Events whose attempts ran out.
        public var deadLettered = 0
        /// Dead letters discarded because there were too many.
        public var discarded = 0
        /// Dead letters put back by a replay.
        public var replayed = 0
    }

    /// The hook's name.
    public var name: String
    /// Its trigger.
    public var trigger: HookTrigger
    /// Its handler's location.
    public var target: String
    /// Events waiting (new or for a retry), in memory or spilled to the store.
    public var pending: Int
    /// Of `pending`, the events waiting in the store only, past the in-memory `capacity`.
    public var spilled: Int = 0
    /// Deliveries in progress.
    public var inFlight: Int
    /// Dead letters kept.
    public var deadLetters: Int
    /// Counters since start-up.
    public var counters: Counters
}
