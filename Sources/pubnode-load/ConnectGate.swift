/// Limits how many TCP connects are in progress at once, so that opening thousands of
/// connections does not overflow the server's listen backlog.
actor ConnectGate {
    /// Permits not currently held.
    private var available: Int
    /// Suspended callers waiting for a permit, oldest first from `head`.
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Index of the oldest waiter still queued in `waiters`.
    private var head = 0

    /// Creates a gate with `permits` concurrent holders.
    init(permits: Int) {
        available = max(1, permits)
    }

    /// Waits for a permit.
    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Returns a permit, waking the oldest waiter if there is one.
    func release() {
        if head < waiters.count {
            let next = waiters[head]
            head += 1
            if head > 1024, head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
            next.resume()
        } else {
            available += 1
        }
    }
}
