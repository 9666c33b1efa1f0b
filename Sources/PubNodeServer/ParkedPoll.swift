import NIOCore
import PubNodeCore
import Synchronization

/// A parked subscribe long-poll, held as state of its connection's handler: the waiter publishers
/// wake, and what it listens to.
///
/// Publishers on any thread wake it; the work of answering always runs on the connection's event
/// loop. `claimed` makes concurrent wakes collapse into one answer.
///
/// `@unchecked Sendable`: `cursor` and `deadline` are read and written only on the connection's
/// event loop (`queue.loop`), by the handler that owns the poll; every other field is immutable or
/// atomic.
/// Keeping the long-poll here, in the one object a park allocates anyway, means the connection's
/// phase holds a single reference: reading it costs one retain, not one per field of the poll.
final class ParkedPoll: Waiter, @unchecked Sendable {
    /// The handler that owns this poll; touched only on its event loop.
    private let owner: NIOLoopBound<PubNodeHTTPHandler>
    private let queue: LoopWakeQueue
    private let claimed = Atomic<Bool>(false)
    /// What it listens to. A constant, so that the handler reads it in place: a variable would be
    /// copied (every field retained and released) for each call made on it.
    let longPoll: LongPoll
    /// Where it reads from: the client's cursor, moved past batches its filter rejected whole.
    /// Event loop only.
    var cursor: Timetoken
    /// When it is answered with no messages and its `cursor` (the long-poll timeout after it parked); set
    /// when it parks. Event loop only.
    var deadline = NIODeadline.distantFuture

    init(owner: PubNodeHTTPHandler, queue: LoopWakeQueue, longPoll: LongPoll) {
        self.owner = NIOLoopBound(owner, eventLoop: queue.loop)
        self.queue = queue
        // The cursor first: the long-poll then moves into place instead of being copied.
        self.cursor = longPoll.cursor
        self.longPoll = longPoll
    }

    /// Wakes from any thread: joins its event loop's next wake batch.
    func wake() {
        guard claim() else { return }
        queue.enqueue(self)
    }

    /// Woken with the other polls of its event loop (`LoopWakeQueue.wake(_:)`).
    var wakeGroup: (any WakeGroup)? { queue }

    /// Claims the next answer: true for the first wake since the poll parked (or was re-armed).
    func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Allows the next wake (after a spurious one).
    func rearm() {
        claimed.store(false, ordering: .releasing)
    }

    /// Runs on the event loop after a claimed wake; `shared` pools identical answers of one batch.
    func fire(sharing shared: SharedAnswers) {
        owner.value.pollWoken(self, sharing: shared)
    }
}

/// The polls of one event loop woken since its last batch: a publish that wakes 10,000 parked
/// subscribers costs one task per event loop, not one per subscriber. It also holds the loop's
/// `LoopClock`.
final class LoopWakeQueue: WakeGroup {
    /// The loop whose polls these are.
    let loop: any EventLoop
    /// The clock of the loop's connections.
    let clock: LoopClock
    /// Answers this loop gave polls that found their messages at once, for later polls that would
    /// be given the same (`PubNodeHTTPHandler.poll`); emptied with each wake batch and each tick of
    /// the loop's clock.
    let recentAnswers: NIOLoopBound<SharedAnswers>
    private let pending = Mutex<[ParkedPoll]>([])

    init(loop: any EventLoop, idleConnectionSeconds: Int) {
        self.loop = loop
        self.clock = LoopClock(loop: loop, idleConnectionSeconds: idleConnectionSeconds)
        let recentAnswers = NIOLoopBound(SharedAnswers(limit: Self.recentAnswerLimit), eventLoop: loop)
        self.recentAnswers = recentAnswers
        clock.forget = { recentAnswers.value.removeAll() }
    }

    /// Adds a woken poll; the first of a batch schedules the batch on the loop.
    func enqueue(_ poll: ParkedPoll) {
        let first = pending.withLock { polls in
            polls.append(poll)
            return polls.count == 1
        }
        if first { loop.execute { self.drain() } }
    }

    /// Wakes many of this loop's polls at once (a publish reaching them): one lock and at most
    /// one task for all, so the loop drains them in one batch rather than racing the publisher.
    func wake(_ waiters: [any Waiter]) {
        var strays: [any Waiter] = []
        let first = pending.withLock { polls in
            let wasEmpty = polls.isEmpty
            for waiter in waiters {
                if let poll = waiter as? ParkedPoll {
                    if poll.claim() { polls.append(poll) }
                } else {
                    strays.append(waiter)
                }
            }
            return wasEmpty && !polls.isEmpty
        }
        if first { loop.execute { self.drain() } }
        // Not this loop's kind (none are today): woken alone, outside the lock.
        for waiter in strays { waiter.wake() }
    }

    /// Answers every poll of the batch, sharing identical answers.
    private func drain() {
        let polls = pending.withLock { polls in
            defer { polls = [] }
            return polls
        }
        recentAnswers.value.removeAll()
        let shared = SharedAnswers()
        for poll in polls { poll.fire(sharing: shared) }
    }

    /// How many answers `recentAnswers` keeps at most (each at most `SharedAnswers.maxKeptBytes`).
    static let recentAnswerLimit = 16
}

/// One `LoopWakeQueue` per event loop of a server, looked up once per connection.
final class WakeQueues: Sendable {
    private let queues = Mutex<[ObjectIdentifier: LoopWakeQueue]>([:])
    private let idleConnectionSeconds: Int

    /// Queues whose loop clocks close connections idle for `idleConnectionSeconds` (never at 0).
    init(idleConnectionSeconds: Int) {
        self.idleConnectionSeconds = idleConnectionSeconds
    }

    /// The queue of `loop`, created on first use.
    func queue(for loop: any EventLoop) -> LoopWakeQueue {
        queues.withLock { queues in
            if let queue = queues[ObjectIdentifier(loop)] { return queue }
            let queue = LoopWakeQueue(loop: loop, idleConnectionSeconds: idleConnectionSeconds)
            queues[ObjectIdentifier(loop)] = queue
            return queue
        }
    }
}
