import NIOCore
import PubNodeCore
import Synchronization

/// A parked subscribe long-poll, held as state of its connection's handler: the waiter publishers
/// wake, and what it listens to. A poll that found messages when it arrived takes the same form
/// while it waits for its loop's answer queue (`isDeferred`), claimed from the start.
///
/// Publishers on any thread wake it; the work of answering always runs on the connection's event
/// loop. `claimed` makes concurrent wakes collapse into one answer.
///
/// `@unchecked Sendable`: `owner` is used, and `cursor`, `deadline` and `isDeferred` are read and
/// written, only on the connection's event loop (`queue.loop`), by the handler that owns the poll or
/// by that loop's answer queue; every other field is immutable or atomic.
/// Keeping the long-poll here, in the one object a park allocates anyway, means the connection's
/// phase holds a single reference: reading it costs one retain, not one per field of the poll.
final class ParkedPoll: Waiter, @unchecked Sendable {
    /// The handler that owns this poll; touched only on its event loop. A plain reference (not an
    /// `NIOLoopBound`, which keeps the loop beside it and checks it on every read): the poll is
    /// woken in a fan-out with thousands of others, and every byte of it is read from memory.
    private let owner: PubNodeHTTPHandler
    private let queue: LoopWakeQueue
    private let claimed = Atomic<Bool>(false)
    /// It found messages when it arrived and waits only for its loop's answer queue
    /// (`LoopWakeQueue`): registered nowhere, not counted among parked polls, no deadline. Event
    /// loop only. (Beside `claimed`, in the bytes its alignment leaves.)
    var isDeferred = false
    /// How many bytes of `owner` to prefetch ahead of answering (`prefetchOwner()`), taken when
    /// the poll is made. (Also in the bytes the alignment leaves.)
    private let ownerBytes: UInt16
    /// What it listens to. A constant, so that the handler reads it in place: a variable would be
    /// copied (every field retained and released) for each call made on it.
    let longPoll: LongPoll
    /// Where it reads from: the client's cursor, moved past batches its filter rejected whole.
    /// Event loop only.
    var cursor: Timetoken
    /// When it is answered with no messages and its `cursor` (the long-poll timeout after it parked); set
    /// when it parks. Event loop only.
    var deadline = NIODeadline.distantFuture

    /// A poll of `longPoll` from `cursor` (by default the client's).
    init(owner: PubNodeHTTPHandler, queue: LoopWakeQueue, longPoll: LongPoll, cursor: Timetoken? = nil) {
        self.owner = owner
        self.queue = queue
        // Measured when the owner was added (`connectionPrefetch`'s last slot).
        self.ownerBytes = UInt16(owner.connectionPrefetch.bytes(3))
        // The cursor first: the long-poll then moves into place instead of being copied.
        self.cursor = cursor ?? longPoll.cursor
        self.longPoll = longPoll
    }

    /// Readies a poll that was answered to park again, from `cursor`, for its connection's next
    /// long-poll of the same subscribe (`RepeatedSubscribe.poll`).
    ///
    /// Only when nothing but its connection holds it: no publisher that took it from a channel
    /// before it was unregistered, and no answer queue, can then still wake it, so allowing the next
    /// wake again cannot let an old one through. Event loop only.
    func restart(from cursor: Timetoken) {
        self.cursor = cursor
        deadline = .distantFuture
        isDeferred = false
        rearm()
    }

    /// Wakes from any thread: joins its event loop's answer queue.
    func wake() {
        guard claim() else { return }
        queue.enqueue(self)
    }

    /// Woken with the other polls of its event loop (`LoopWakeQueue.wake(_:)`).
    var wakeGroup: (any WakeGroup)? { queue }

    /// Claims the next answer: true for the first wake since the poll parked (or was re-armed); a
    /// deferred poll claims its own at once.
    func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Allows the next wake (after a spurious one).
    func rearm() {
        claimed.store(false, ordering: .releasing)
    }

    /// Bytes to prefetch of a parked poll: its whole instance (checked by `PrefetchTests`).
    static let prefetchBytes = 192

    /// Asks for the owner's lines, ahead of answering this poll; reads only this poll's own line.
    /// Event loop only, like the answer it prepares (`LoopWakeQueue` asks while answering the
    /// polls before).
    @inline(__always)
    func prefetchOwner() {
        Prefetch.object(owner, bytes: Int(ownerBytes))
    }

    /// Asks for the lines of what the owner refers to on the way to the socket (NIO's context,
    /// channel and pipeline objects), reading the owner's lines that `prefetchOwner()` asked for.
    @inline(__always)
    func prefetchConnection() {
        owner.connectionPrefetch.prefetch(0..<3)
    }

    /// Runs on the event loop after a claimed wake; `shared` pools identical answers of one chunk.
    func fire(sharing shared: SharedAnswers) {
        // Only `LoopWakeQueue` calls this, from a task it runs on its loop, which is this poll's
        // (`queue.loop`): checked in debug builds, not on every delivery of a release build.
        assert(queue.loop.inEventLoop, "a poll answered off its connection's loop")
        owner.pollWoken(self, sharing: shared)
    }
}

/// One `LoopWakeQueue` per event loop of a server, looked up once per connection.
final class WakeQueues: Sendable {
    private let queues: PerLoop<LoopWakeQueue>

    /// Queues whose loop clocks close connections idle for `idleConnectionSeconds` (never at 0).
    init(idleConnectionSeconds: Int) {
        queues = PerLoop { LoopWakeQueue(loop: $0, idleConnectionSeconds: idleConnectionSeconds) }
    }

    /// The queue of `loop`, created on first use.
    func queue(for loop: any EventLoop) -> LoopWakeQueue {
        queues.value(for: loop)
    }
}
