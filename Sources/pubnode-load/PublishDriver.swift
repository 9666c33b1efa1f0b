/// Sends publishes back to back on one connection until the deadline (wrk-style closed loop).
final class PublishDriver: ExchangeDriver {
    /// Prebuilt publish requests, one per channel, used round-robin.
    private let requests: [OutboundRequest]
    /// Builds and checks requests.
    private let factory: RequestFactory
    /// Samples before this instant are warm-up.
    private let measureFrom: UInt64
    /// No request is started at or after this instant.
    private let measureUntil: UInt64
    /// Shared error samples.
    private let errorLog: ErrorLog
    /// Next channel index.
    private var cursor: Int
    /// Results so far.
    private(set) var stats = PublishStats()
    /// Set once the deadline has passed.
    private(set) var isFinished = false
    /// Upper bound on kept latency samples per connection.
    private let sampleCap = 2_000_000

    /// Creates a publisher starting at channel `offset` of `requests`.
    init(
        requests: [OutboundRequest], offset: Int, factory: RequestFactory,
        measureFrom: UInt64, measureUntil: UInt64, errorLog: ErrorLog
    ) {
        self.requests = requests
        self.cursor = offset % max(1, requests.count)
        self.factory = factory
        self.measureFrom = measureFrom
        self.measureUntil = measureUntil
        self.errorLog = errorLog
    }

    /// Next publish, or `.finish` after the deadline.
    func nextStep(now: UInt64) -> ExchangeStep {
        if isFinished || now >= measureUntil {
            isFinished = true
            return .finish
        }
        let request = requests[cursor]
        cursor = (cursor + 1) % requests.count
        return .send(request)
    }

    /// Counts the answer; only answers to requests sent inside the window are timed.
    func received(_ reply: HTTPReply, request: OutboundRequest, sentAt: UInt64, now: UInt64) {
        guard factory.isPublishAccepted(reply) else {
            stats.errors += 1
            errorLog.record { "\(request.summary) -> \(reply.summary())" }
            return
        }
        if sentAt >= measureFrom, now <= measureUntil {
            stats.accepted += 1
            if stats.latencies.count < sampleCap { stats.latencies.append(now - sentAt) }
        }
    }

    /// Counts a lost request (or a failed connect) as an error.
    func connectionLost(request: OutboundRequest?, error: (any Error)?) {
        guard request != nil || error != nil else { return }
        stats.errors += 1
        errorLog.record { ErrorLog.loss(request: request, error: error) }
    }
}
