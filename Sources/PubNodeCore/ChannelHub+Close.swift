extension ChannelHub {
    /// Empties the hub for good (its keyset is being deleted): every channel, group and pattern is
    /// reclaimed and emptied, and the waiters parked on any of them are returned to be woken. A
    /// woken poll reads nothing more from here; the keyset's next request is refused.
    func close() -> [any Waiter] {
        var waiters: [any Waiter] = []
        _ = channels.removeAll { _, state in
            state.inner.withLock { inner in
                inner.ring = MessageRing(capacity: limits.bufferSize)
                inner.waiters.takeAll(into: &waiters)
                state.reclaim(&inner)
            }
            return true
        }
        for map in [groups, prefixes] {
            _ = map.removeAll { _, state in
                state.inner.withLock { inner in
                    inner.reclaimed = true
                    inner.members.removeAll()
                    inner.waiters.takeAll(into: &waiters)
                }
                return true
            }
        }
        return waiters
    }
}
