import NIOCore

/// A long-poll subscriber that re-polls after every answer and times each delivered message.
final class SubscriberDriver: ExchangeDriver {
    /// Builds the subscribe requests.
    private let factory: RequestFactory
    /// Channel subscribed to.
    private let channel: String
    /// PubNub client id (`s<index>`).
    private let uuid: String
    /// Shared counters.
    private let progress: SubscriberProgress
    /// PubNode: timetoken to resume from ("0" before the handshake).
    private var timetoken = "0"
    /// Nchan: `Last-Modified` of the previous answer.
    private var lastModified: String?
    /// Nchan: `Etag` of the previous answer.
    private var etag: String?
    /// Whether this subscriber was already counted as parked.
    private var countedParked = false
    /// No poll before this instant (back-off after an error).
    private var notBefore: UInt64 = 0
    /// Sequence numbers received so far.
    private var seen = Set<Int>()
    /// Delivery latency of each received message, in nanoseconds.
    private(set) var latencies: [UInt64] = []
    /// Sequence number of the message each latency belongs to (same order as `latencies`).
    private(set) var sequences: [Int] = []
    /// Subscribers never finish by themselves; the run closes them.
    var isFinished: Bool { progress.isStopping }

    /// Creates subscriber number `index` on `channel`.
    init(index: Int, channel: String, factory: RequestFactory, progress: SubscriberProgress) {
        self.factory = factory
        self.channel = channel
        self.uuid = "s\(index)"
        self.progress = progress
    }

    /// The next long-poll (after a short back-off if the previous one failed).
    func nextStep(now: UInt64) -> ExchangeStep {
        if progress.isStopping { return .finish }
        if now < notBefore { return .wait(until: .uptimeNanoseconds(notBefore)) }
        let request: OutboundRequest
        switch factory.target {
        case .pubnode:
            request = factory.pubnodeSubscribe(channel: channel, uuid: uuid, timetoken: timetoken)
            if timetoken != "0" { markParkedOnce() }
        case .nchan:
            request = factory.nchanSubscribe(channel: channel, lastModified: lastModified, etag: etag)
            markParkedOnce()
        }
        return .send(request)
    }

    /// Records the messages of an answer and remembers where to resume.
    func received(_ reply: HTTPReply, request: OutboundRequest, sentAt: UInt64, now: UInt64) {
        switch factory.target {
        case .pubnode:
            guard reply.statusCode == 200, let next = BodyScanner.timetoken(in: reply.body) else {
                fail("\(request.summary) -> \(reply.summary())", now: now)
                return
            }
            timetoken = next
        case .nchan:
            if reply.statusCode == 304 || reply.statusCode == 408 { return }
            guard reply.statusCode == 200 else {
                fail("\(request.summary) -> \(reply.summary())", now: now)
                return
            }
            lastModified = reply.header("Last-Modified") ?? lastModified
            etag = reply.header("Etag") ?? etag
        }
        record(BodyScanner.stamps(in: reply.body), now: now)
    }

    /// Counts a lost poll as an error unless the run is being torn down.
    func connectionLost(request: OutboundRequest?, error: (any Error)?) {
        guard !progress.isStopping, request != nil || error != nil else { return }
        progress.errors.record { ErrorLog.loss(request: request, error: error) }
    }

    /// Adds one latency per new message; counts duplicates and messages older than the run.
    private func record(_ stamps: [BodyScanner.Stamp], now: UInt64) {
        guard !stamps.isEmpty else { return }
        var fresh = 0
        var duplicate = 0
        var stale = 0
        for stamp in stamps {
            if stamp.sentNanos < progress.startedAt {
                stale += 1
                continue
            }
            if stamp.sequence >= 0, !seen.insert(stamp.sequence).inserted {
                duplicate += 1
                continue
            }
            fresh += 1
            latencies.append(now >= stamp.sentNanos ? now - stamp.sentNanos : 0)
            sequences.append(stamp.sequence)
        }
        if fresh > 0 { progress.markDelivered(fresh) }
        if duplicate > 0 { progress.markDuplicate(duplicate) }
        if stale > 0 { progress.markStale(stale) }
    }

    /// Records an error and backs off for 100 ms.
    private func fail(_ description: String, now: UInt64) {
        progress.errors.record { description }
        notBefore = now + 100_000_000
    }

    /// Counts this subscriber as parked the first time its resuming poll is sent.
    private func markParkedOnce() {
        guard !countedParked else { return }
        countedParked = true
        progress.markParked()
    }
}
