import DequeModule

extension MessageRing {
    /// Merges `messages` (with timetokens issued elsewhere, in any order, possibly already held)
    /// into the ring: the result holds each timetoken once, in order, at most `capacity` of the
    /// newest. `droppedThrough` is what the source had dropped; the ring keeps the larger mark.
    /// Returns how many messages were added.
    @discardableResult
    public mutating func merge(_ messages: [PublishedMessage], droppedThrough source: Timetoken?) -> Int {
        if let source, source > (droppedThrough ?? .zero) { droppedThrough = source }
        var added = 0
        var merged = Array(storage)
        var held = Set(merged.lazy.map(\.timetoken))
        for message in messages where held.insert(message.timetoken).inserted {
            merged.append(message)
            added += 1
        }
        guard added > 0 else { return 0 }
        merged.sort { $0.timetoken < $1.timetoken }
        if let mark = droppedThrough { merged.removeAll { $0.timetoken <= mark } }
        if merged.count > capacity {
            droppedThrough = merged[merged.count - capacity - 1].timetoken
            merged.removeFirst(merged.count - capacity)
        }
        storage = Deque(merged)
        return added
    }

    /// Forgets every buffered message and the dropped mark (the buffer lives elsewhere and will be
    /// read again before it is used).
    public mutating func removeAll() {
        storage.removeAll()
        droppedThrough = nil
    }
}
