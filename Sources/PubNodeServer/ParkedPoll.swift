import NIOCore
import PubNodeCore
import Synchronization

/// A parked subscribe long-poll, held as state of its connection's handler.
///
/// Publishers on any thread wake it; the work of answering always runs on the connection's event
/// loop. `claimed` makes concurrent wakes collapse into one answer.
final class ParkedPoll: Waiter {
    /// The handler that owns this poll; touched only on its event loop.
    private let owner: NIOLoopBound<PubNodeHTTPHandler>
    private let queue: LoopWakeQueue
    private let claimed = Atomic<Bool>(false)

    init(owner: PubNodeHTTPHandler, queue: LoopWakeQueue) {
        self.owner = NIOLoopBound(owner, eventLoop: queue.loop)
        self.queue = queue
    }

    /// Wakes from any thread: joins its event loop's next wake batch.
    func wake() {
        guard !claimed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.enqueue(self)
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
/// subscribers costs one task per event loop, not one per subscriber.
final class LoopWakeQueue: Sendable {
    /// The loop whose polls these are.
    let loop: any EventLoop
    private let pending = Mutex<[ParkedPoll]>([])

    init(loop: any EventLoop) { self.loop = loop }

    /// Adds a woken poll; the first of a batch schedules the batch on the loop.
    func enqueue(_ poll: ParkedPoll) {
        let first = pending.withLock { polls in
            polls.append(poll)
            return polls.count == 1
        }
        if first { loop.execute { self.drain() } }
    }

    /// Answers every poll of the batch, sharing identical answers.
    private func drain() {
        let polls = pending.withLock { polls in
            defer { polls = [] }
            return polls
        }
        let shared = SharedAnswers()
        for poll in polls { poll.fire(sharing: shared) }
    }
}

/// One `LoopWakeQueue` per event loop of a server, looked up once per connection.
final class WakeQueues: Sendable {
    private let queues = Mutex<[ObjectIdentifier: LoopWakeQueue]>([:])

    init() {}

    /// The queue of `loop`, created on first use.
    func queue(for loop: any EventLoop) -> LoopWakeQueue {
        queues.withLock { queues in
            if let queue = queues[ObjectIdentifier(loop)] { return queue }
            let queue = LoopWakeQueue(loop: loop)
            queues[ObjectIdentifier(loop)] = queue
            return queue
        }
    }
}

/// Answers computed once per wake batch and reused by every poll of that batch that would compute
/// the same one: subscribers of one channel holding the same cursor get byte-identical responses,
/// so the buffer is read, rendered and serialized once and written to each socket as is.
///
/// Created and used inside one task on one event loop; never shared across threads.
final class SharedAnswers {
    /// What makes two answers identical.
    struct Key: Hashable {
        var subscribeKey: String
        var channel: String
        var cursor: Timetoken
        /// The subscriber's filter text: polls with different filters never share an answer.
        var filter: String?
        var minorVersion: Int
        var keepAlive: Bool
    }

    /// Each answer's bytes and the batch it carries (counted once per poll it answers).
    var responses: [Key: (bytes: ByteBuffer, batch: DeliveryBatch)] = [:]
}
