extension ChannelHub {
    /// Puts messages that already have timetokens back into their channels' rings (after a
    /// restart), without waking anyone. Each channel's messages must come in timetoken order; one
    /// not newer than its ring's newest is skipped. Returns how many were buffered.
    @discardableResult
    public func restore(_ messages: [PublishedMessage]) -> Int {
        var restored = 0
        for message in messages {
            withChannel(message.channel) { inner in
                if let newest = inner.ring.newest, message.timetoken <= newest { return }
                inner.ring.append(message)
                restored += 1
            }
        }
        return restored
    }
}
