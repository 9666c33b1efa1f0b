import NIOCore
import PubNodeCore
import Synchronization

/// The polls of one event loop waiting to be answered: those a publish woke, and those that found
/// their messages when they arrived. It also holds the loop's `LoopClock` and `KeptHeadBank`.
///
/// A publish that wakes 10,000 parked subscribers costs one lock and one task per event loop, not
/// one per subscriber, and answering starts after the loop has handled the rest of what it read in
/// that turn, so publishes read in the same turn reach a subscriber in one answer. Polls are
/// answered in the order they joined, `chunkSize` at a time. A burst of answers runs without a
/// break for up to `maxUninterrupted`; past that, while polls still wait, the loop goes back to
/// its sockets between chunks (`yieldDelay`), so under sustained load a publish is read within a
/// chunk's time rather than after every waiting answer, and the polls still waiting then answer
/// with it too. (Breaking every burst up from the start measured worse: the subscribers' next
/// polls, read between chunks, then delay the rest of a burst that would have finished on its own.)
///
/// Invariant: `pending.scheduled` is true from the moment a poll joins an empty queue with no
/// answering scheduled until the chunk that finds the queue empty: at most one answering task (an
/// immediate one or a continuation) is outstanding per loop.
final class LoopWakeQueue: WakeGroup {
    /// The loop whose polls these are.
    let loop: any EventLoop
    /// The clock of the loop's connections.
    let clock: LoopClock
    /// The heads the loop's connections keep, shared between those that send the same bytes.
    let heads: KeptHeadBank
    private let pending = Mutex(Pending())
    private let uninterruptedNanoseconds = Atomic<Int64>(LoopWakeQueue.defaultMaxUninterrupted.nanoseconds)

    private struct Pending {
        var polls = CircularBuffer<ParkedPoll>()
        var scheduled = false
        /// When answering began with polls waiting ever since; nil while none wait.
        var busySince: NIODeadline?
    }

    /// Most polls answered before the loop goes back to its sockets (about 3 ms of answers on
    /// this project's benchmark host).
    static let chunkSize = 256
    /// How far ahead the next chunk is scheduled: far enough that the loop finds it not yet due when
    /// it finishes the current tick, and so polls its sockets first (at once when some are ready;
    /// otherwise it sleeps at most this long). NIO has no other way to hand the loop back to its
    /// sockets between two tasks: work scheduled due now runs in the same tick.
    static let yieldDelay = TimeAmount.microseconds(50)
    /// The default of `maxUninterrupted`.
    static let defaultMaxUninterrupted = TimeAmount.milliseconds(100)

    /// How long a burst of answers may hold the loop before it goes back to its sockets between
    /// chunks, measured on the loop's clock.
    var maxUninterrupted: TimeAmount {
        get { .nanoseconds(uninterruptedNanoseconds.load(ordering: .relaxed)) }
        set { uninterruptedNanoseconds.store(newValue.nanoseconds, ordering: .relaxed) }
    }

    init(loop: any EventLoop, idleConnectionSeconds: Int) {
        self.loop = loop
        self.clock = LoopClock(loop: loop, idleConnectionSeconds: idleConnectionSeconds)
        self.heads = KeptHeadBank(loop: loop)
    }

    /// Adds a woken poll (or one that found its messages at once).
    func enqueue(_ poll: ParkedPoll) {
        let schedule = pending.withLock { pending in
            pending.polls.append(poll)
            return Self.claimSchedule(&pending)
        }
        if schedule { loop.execute { self.answerChunk() } }
    }

    /// Wakes many of this loop's polls at once (a publish reaching them): one lock and at most
    /// one task for all, so the loop answers them in one go rather than racing the publisher.
    func wake(_ waiters: [any Waiter]) {
        var strays: [any Waiter] = []
        let schedule = pending.withLock { pending in
            for waiter in waiters {
                if let poll = waiter as? ParkedPoll {
                    if poll.claim() { pending.polls.append(poll) }
                } else {
                    strays.append(waiter)
                }
            }
            return Self.claimSchedule(&pending)
        }
        if schedule { loop.execute { self.answerChunk() } }
        // Not this loop's kind (none are today): woken alone, outside the lock.
        for waiter in strays { waiter.wake() }
    }

    /// Whether the caller is to schedule answering: polls wait and none is scheduled yet.
    private static func claimSchedule(_ pending: inout Pending) -> Bool {
        guard !pending.scheduled, !pending.polls.isEmpty else { return false }
        pending.scheduled = true
        return true
    }

    /// Answers waiting polls a chunk at a time: without a break for up to `maxUninterrupted`, then
    /// going back to the loop's sockets between chunks until none wait.
    private func answerChunk() {
        let budget = maxUninterrupted
        while let busySince = answerNextPolls() {
            guard loop.now - busySince < budget else {
                loop.scheduleTask(in: Self.yieldDelay) { self.answerChunk() }
                return
            }
        }
    }

    /// Answers up to `chunkSize` polls; when more wait, since when answering has been busy.
    private func answerNextPolls() -> NIODeadline? {
        var chunk: [ParkedPoll] = []
        let busySince = pending.withLock { pending -> NIODeadline? in
            if pending.busySince == nil { pending.busySince = loop.now }
            let count = min(pending.polls.count, Self.chunkSize)
            chunk.reserveCapacity(count)
            for _ in 0..<count { chunk.append(pending.polls.removeFirst()) }
            if pending.polls.isEmpty {
                pending.scheduled = false
                pending.busySince = nil
            }
            return pending.busySince
        }
        let shared = SharedAnswers()
        chunk.withUnsafeBufferPointer { polls in
            // The lines of the polls after this one are asked for while it is answered (`Prefetch`):
            // a poll's own three answers ahead, its handler's two, what the handler refers to one.
            // Each step reads only lines that the step before asked for, answers earlier.
            for index in polls.indices {
                if index + 3 < polls.count { Prefetch.object(polls[index + 3], bytes: ParkedPoll.prefetchBytes) }
                if index + 2 < polls.count { polls[index + 2].prefetchOwner() }
                if index + 1 < polls.count { polls[index + 1].prefetchConnection() }
                polls[index].fire(sharing: shared)
            }
        }
        shared.finish()
        return busySince
    }
}
