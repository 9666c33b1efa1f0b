import DequeModule

/// A channel's bounded buffer of its latest messages, in timetoken order.
///
/// Appends drop the oldest message once `capacity` is reached. Reads after a cursor use binary
/// search, so a catch-up costs O(log n + k).
public struct MessageRing: Sendable {
    /// The most messages kept.
    public let capacity: Int
    var storage: Deque<PublishedMessage> = []
    /// The newest timetoken the ring has dropped (for capacity or age), if any: a cursor below it
    /// has missed messages that only history can still have.
    public internal(set) var droppedThrough: Timetoken?

    /// Creates an empty ring holding at most `capacity` messages.
    public init(capacity: Int) {
        precondition(capacity > 0, "ring capacity must be positive")
        self.capacity = capacity
    }

    /// Number of buffered messages.
    public var count: Int { storage.count }

    /// True when nothing is buffered.
    public var isEmpty: Bool { storage.isEmpty }

    /// Timetoken of the newest message, if any.
    public var newest: Timetoken? { storage.last?.timetoken }

    /// Whether a message newer than `cursor` is buffered (`messages(after:)` would find one).
    public func hasMessages(after cursor: Timetoken) -> Bool {
        guard let newest else { return false }
        return newest > cursor
    }

    /// Appends a message whose timetoken is greater than every buffered one.
    public mutating func append(_ message: PublishedMessage) {
        if storage.count == capacity { droppedThrough = storage.removeFirst().timetoken }
        storage.append(message)
    }

    /// Buffered messages with a timetoken strictly greater than `cursor`, oldest first, at most `limit`.
    public func messages(after cursor: Timetoken, limit: Int = .max) -> ArraySlice<PublishedMessage> {
        ArraySlice(storage[range(after: cursor, limit: limit)])
    }

    /// `messages(after:limit:)` as the deliveries of a direct subscription, built in one array
    /// (a reader of one channel needs no other copy of them).
    func deliveries(after cursor: Timetoken, limit: Int) -> [Delivery] {
        let found = range(after: cursor, limit: limit)
        guard !found.isEmpty else { return [] }
        return storage[found].map { Delivery(message: $0, match: nil) }
    }

    /// The positions of `messages(after:limit:)` (found by binary search: timetokens ascend).
    private func range(after cursor: Timetoken, limit: Int) -> Range<Int> {
        var low = storage.startIndex
        var high = storage.endIndex
        while low < high {
            let mid = (low + high) / 2
            if storage[mid].timetoken <= cursor { low = mid + 1 } else { high = mid }
        }
        return low..<(low + min(limit, storage.count - low))
    }

    /// Whether a reader at `cursor` has missed messages this ring no longer holds.
    public func missed(after cursor: Timetoken) -> Bool {
        guard let droppedThrough else { return false }
        return cursor < droppedThrough
    }

    /// The gap a reader at `cursor` has on `channel` (this ring's channel), or nil when it missed nothing.
    func gap(after cursor: Timetoken, channel: String) -> ChannelGap? {
        guard missed(after: cursor), let droppedThrough else { return nil }
        return ChannelGap(channel: channel, through: droppedThrough)
    }

    /// Drops messages published before `nanoseconds` (wall time); returns how many were dropped.
    @discardableResult
    public mutating func expire(before nanoseconds: UInt64) -> Int {
        var dropped = 0
        while let first = storage.first, first.publishedAtNanoseconds < nanoseconds {
            droppedThrough = storage.removeFirst().timetoken
            dropped += 1
        }
        return dropped
    }
}
