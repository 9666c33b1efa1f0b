import NIOCore

/// Publishes its share of a fixed schedule of time-stamped messages on one connection.
///
/// Message `k` is due at `startAt + k × interval`. With `lanes` publishers, lane `i` sends the
/// messages with `k % lanes == i`, so a message leaves on time even while an earlier one, sent on
/// another lane, still waits for its acknowledgement: every server is offered the same messages at
/// the same instants as long as an acknowledgement takes less than `lanes × interval`. Beyond that
/// a lane sends late, and `maxLateness` says by how much.
final class TimedPublisherDriver: ExchangeDriver {
    /// Builds and checks requests.
    private let factory: RequestFactory
    /// Channel published to.
    private let channel: String
    /// Messages in the whole schedule (all lanes).
    private let total: Int
    /// Interval between scheduled publishes, in nanoseconds.
    private let interval: UInt64
    /// Number of lanes sharing the schedule.
    private let lanes: Int
    /// Instant message 0 is due, in `MonotonicClock` nanoseconds.
    private let startAt: UInt64
    /// Shared counters.
    private let progress: SubscriberProgress
    /// Sequence number of this lane's next message.
    private var next: Int
    /// Publish round-trip latencies, in nanoseconds.
    private(set) var latencies: [UInt64] = []
    /// The most any of this lane's publishes left after its due instant, in nanoseconds.
    private(set) var maxLateness: UInt64 = 0
    /// True once every message of this lane was sent and answered.
    private(set) var isFinished = false

    /// Creates lane `lane` of `lanes` publishing `total` messages to `channel`, one every
    /// `intervalMillis` from `startAt` (a `MonotonicClock` instant).
    init(
        factory: RequestFactory, channel: String, total: Int, intervalMillis: Int,
        lane: Int, lanes: Int, startAt: UInt64, progress: SubscriberProgress
    ) {
        precondition(lanes >= 1 && (0..<lanes).contains(lane), "lane must be in 0..<lanes")
        self.factory = factory
        self.channel = channel
        self.total = total
        self.interval = UInt64(max(0, intervalMillis)) * 1_000_000
        self.lanes = lanes
        self.startAt = startAt
        self.next = lane
        self.progress = progress
    }

    /// Waits for this lane's next slot, then publishes `{"sent_ns":<now>,"seq":<k>}`.
    func nextStep(now: UInt64) -> ExchangeStep {
        if next >= total || progress.isStopping {
            isFinished = true
            return .finish
        }
        let due = startAt + UInt64(next) * interval
        if now < due { return .wait(until: .uptimeNanoseconds(due)) }
        maxLateness = max(maxLateness, now - due)
        let message = "{\"sent_ns\":\(MonotonicClock.now()),\"seq\":\(next)}"
        next += lanes
        return .send(factory.publish(channel: channel, message: message))
    }

    /// Checks the acknowledgement.
    func received(_ reply: HTTPReply, request: OutboundRequest, sentAt: UInt64, now: UInt64) {
        latencies.append(now - sentAt)
        if factory.isPublishAccepted(reply) {
            progress.markPublished()
        } else {
            progress.publishErrors.record { "\(request.summary) -> \(reply.summary())" }
        }
    }

    /// Counts a lost publish as an error.
    func connectionLost(request: OutboundRequest?, error: (any Error)?) {
        guard !progress.isStopping, request != nil || error != nil else { return }
        progress.publishErrors.record { ErrorLog.loss(request: request, error: error) }
    }
}
