import NIOCore

/// Publishes a fixed number of time-stamped messages at a fixed interval on one connection.
final class TimedPublisherDriver: ExchangeDriver {
    /// Builds and checks requests.
    private let factory: RequestFactory
    /// Channel published to.
    private let channel: String
    /// Messages to publish.
    private let total: Int
    /// Interval between scheduled publishes, in nanoseconds.
    private let interval: UInt64
    /// Shared counters.
    private let progress: SubscriberProgress
    /// Scheduled time of the first publish (set on the first step).
    private var startAt: UInt64?
    /// Messages sent so far.
    private var sent = 0
    /// Publish round-trip latencies, in nanoseconds.
    private(set) var latencies: [UInt64] = []
    /// True once every message was sent and answered.
    private(set) var isFinished = false

    /// Creates a publisher of `total` messages to `channel`, one every `intervalMillis`.
    init(factory: RequestFactory, channel: String, total: Int, intervalMillis: Int, progress: SubscriberProgress) {
        self.factory = factory
        self.channel = channel
        self.total = total
        self.interval = UInt64(max(0, intervalMillis)) * 1_000_000
        self.progress = progress
    }

    /// Waits for the next slot, then publishes `{"sent_ns":<now>,"seq":<k>}`.
    func nextStep(now: UInt64) -> ExchangeStep {
        if sent >= total || progress.isStopping {
            isFinished = true
            return .finish
        }
        let start = startAt ?? now
        startAt = start
        let due = start + UInt64(sent) * interval
        if now < due { return .wait(until: .uptimeNanoseconds(due)) }
        let message = "{\"sent_ns\":\(MonotonicClock.now()),\"seq\":\(sent)}"
        sent += 1
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
