import NIOCore
import PubNodeCore
import Synchronization

/// A parked subscribe long-poll, held as state of its connection's handler.
///
/// Publishers on any thread wake it; the work of answering always runs on the connection's event
/// loop. `claimed` makes concurrent wakes collapse into one scheduled answer.
final class ParkedPoll: Waiter {
    /// The connection's event loop.
    let eventLoop: any EventLoop
    /// The handler that owns this poll; touched only on `eventLoop`.
    private let owner: NIOLoopBound<PubNodeHTTPHandler>
    private let claimed = Atomic<Bool>(false)

    init(owner: PubNodeHTTPHandler, eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.owner = NIOLoopBound(owner, eventLoop: eventLoop)
    }

    /// Wakes from any thread: schedules one answer on the event loop.
    func wake() {
        guard claim() else { return }
        eventLoop.execute { self.fire() }
    }

    /// Claims the wake; true for the first caller since the last `rearm()`.
    func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Allows the next wake (after a spurious one).
    func rearm() {
        claimed.store(false, ordering: .releasing)
    }

    /// Runs on the event loop after a claimed wake; `shared` pools identical answers of one batch.
    func fire(sharing shared: SharedAnswers? = nil) {
        owner.value.pollWoken(self, sharing: shared)
    }
}

/// Wakes parked polls with one task per event loop instead of one per subscriber.
enum WakeBatcher {
    /// Wakes `waiters`, batching the parked polls by event loop.
    static func wake(_ waiters: [any Waiter]) {
        guard waiters.count > 1 else {
            waiters.first?.wake()
            return
        }
        var batches: [ObjectIdentifier: (loop: any EventLoop, polls: [ParkedPoll])] = [:]
        for waiter in waiters {
            guard let poll = waiter as? ParkedPoll else {
                waiter.wake()
                continue
            }
            guard poll.claim() else { continue }
            batches[ObjectIdentifier(poll.eventLoop), default: (poll.eventLoop, [])].polls.append(poll)
        }
        for batch in batches.values {
            let polls = batch.polls
            batch.loop.execute {
                let shared = SharedAnswers()
                for poll in polls { poll.fire(sharing: shared) }
            }
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
        var broker: ObjectIdentifier
        var channel: String
        var cursor: Timetoken
        var minorVersion: Int
        var keepAlive: Bool
    }

    var responses: [Key: ByteBuffer] = [:]
}
