import NIOCore

extension PubNodeHTTPHandler {
    /// Asks for the lines a request of this connection is likely to read, before its bytes are
    /// parsed: the handler's, and, for the next poll of a kept subscribe, the kept subscribe, its
    /// target's bytes, its prepared request and its parked poll. (NIO's objects of the connection
    /// were read on the way here.)
    /// In a fan-out every subscriber's next poll arrives after thousands of other connections'
    /// answers have passed through the cache; asked for together, these lines arrive in the time
    /// of one wait rather than one after another (`Prefetch`).
    @inline(__always)
    func prefetchForRead() {
        connectionPrefetch.prefetch(3)
        readPrefetch.prefetch()
    }

    /// Records where the kept subscribe's objects are, for `prefetchForRead()`: called as a poll
    /// parks, when they are in cache. Their addresses and sizes are measured once per kept
    /// subscribe (`RepeatedSubscribe.prefetch`); only its parked poll changes.
    func noteRepeatedReads() {
        guard let kept = state.lastSubscribe else {
            readPrefetch.removeAll()
            return
        }
        if kept.prefetch.address(0) == nil {
            kept.prefetch.set(0, Prefetch.address(of: kept), bytes: Prefetch.heapBytes(of: kept))
            kept.prefetch.set(1, kept.kept.bytesAddress, bytes: kept.kept.target.utf8.count)
            kept.prefetch.set(2, Prefetch.address(of: kept.prepared), bytes: Prefetch.heapBytes(of: kept.prepared))
        }
        readPrefetch = kept.prefetch
        readPrefetch.set(3, kept.poll.map { Prefetch.address(of: $0) }, bytes: ParkedPoll.prefetchBytes)
    }
}
