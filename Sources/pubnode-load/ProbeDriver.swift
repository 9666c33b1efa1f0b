import NIOCore

/// Sends one request again and again at a fixed interval on one connection, timing each answer.
///
/// Used for here-now latency (recording the occupancy read) and for publish latency while the
/// node sweeps presence timeouts.
final class ProbeDriver: ExchangeDriver {
    /// The request sent every time.
    private let request: OutboundRequest
    /// Nanoseconds between two sends.
    private let interval: UInt64
    /// Most samples taken (nil: until stopped).
    private let limit: Int?
    /// Whether answers are here-now bodies whose occupancy is recorded.
    private let readsOccupancy: Bool
    /// Shared counters and switches.
    private let progress: PresenceProgress
    /// Instant of the next send.
    private var nextAt: UInt64 = 0
    /// Each answered request: when it was sent and its round-trip time, in nanoseconds.
    private(set) var samples: [(sentAt: UInt64, latency: UInt64)] = []
    /// Set once the probe has taken its samples or the run stopped it.
    private(set) var isFinished = false

    /// Creates a probe sending `request` every `intervalMillis`, at most `limit` times.
    init(request: OutboundRequest, intervalMillis: Int, limit: Int?, readsOccupancy: Bool, progress: PresenceProgress) {
        self.request = request
        self.interval = UInt64(max(0, intervalMillis)) * 1_000_000
        self.limit = limit
        self.readsOccupancy = readsOccupancy
        self.progress = progress
    }

    /// The next send, once its slot has come.
    func nextStep(now: UInt64) -> ExchangeStep {
        if progress.areProbesStopped || (limit.map { samples.count >= $0 } ?? false) {
            isFinished = true
            return .finish
        }
        if now < nextAt { return .wait(until: .uptimeNanoseconds(nextAt)) }
        nextAt = now + interval
        return .send(request)
    }

    /// Times the answer and, for here-now, records the occupancy it reports.
    func received(_ reply: HTTPReply, request: OutboundRequest, sentAt: UInt64, now: UInt64) {
        guard reply.isSuccess else {
            progress.probeErrors.record { "\(request.summary) -> \(reply.summary())" }
            return
        }
        samples.append((sentAt, now - sentAt))
        if readsOccupancy, let occupancy = Self.occupancy(in: reply.body) { progress.record(occupancy: occupancy) }
    }

    /// Counts a lost probe as an error.
    func connectionLost(request: OutboundRequest?, error: (any Error)?) {
        guard !progress.areProbesStopped, request != nil || error != nil else { return }
        progress.probeErrors.record { ErrorLog.loss(request: request, error: error) }
    }

    /// The first `"occupancy":N` of a body.
    static func occupancy(in body: ByteBuffer) -> Int? {
        let key = Array(#""occupancy":"#.utf8)
        let bytes = Array(body.readableBytesView.prefix(256))
        guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: key) }) else { return nil }
        let digits = bytes[(start + key.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}
