import NIOCore

/// Keeps a slice of uuids present: back to back, each uuid heartbeats its own channel and the
/// shared crowd channel, the whole slice `rounds` times.
final class HeartbeatDriver: ExchangeDriver {
    /// Builds the requests.
    private let factory: RequestFactory
    /// The uuid numbers this connection heartbeats for.
    private let uuids: [Int]
    /// Number of ordinary channels; uuid `u` is on channel `u % channels`.
    private let channels: Int
    /// Channel name prefix.
    private let prefix: String
    /// The channel every uuid is on.
    private let crowd: String
    /// Presence timeout sent with every heartbeat.
    private let timeoutSeconds: Int
    /// Heartbeats per uuid.
    private let rounds: Int
    /// Shared counters and switches.
    private let progress: PresenceProgress
    /// Requests sent so far.
    private var sent = 0
    /// Round-trip time of each heartbeat, in nanoseconds.
    private(set) var latencies: [UInt64] = []
    /// Set once every round is sent and answered, or the run stopped the heartbeats.
    private(set) var isFinished = false

    /// Creates a driver heartbeating each of `uuids` `rounds` times.
    init(uuids: [Int], channels: Int, prefix: String, crowd: String, timeoutSeconds: Int, rounds: Int,
         factory: RequestFactory, progress: PresenceProgress) {
        self.uuids = uuids
        self.channels = channels
        self.prefix = prefix
        self.crowd = crowd
        self.timeoutSeconds = timeoutSeconds
        self.rounds = rounds
        self.factory = factory
        self.progress = progress
    }

    /// The next heartbeat, or `.finish` after the last round.
    func nextStep(now: UInt64) -> ExchangeStep {
        if progress.areHeartbeatsStopped || sent >= uuids.count * rounds {
            isFinished = true
            return .finish
        }
        let uuid = uuids[sent % uuids.count]
        sent += 1
        return .send(factory.heartbeat(channels: ["\(prefix)\(uuid % channels)", crowd], uuid: Self.name(uuid),
                                       timeoutSeconds: timeoutSeconds))
    }

    /// Counts the answer; the first answer for each uuid counts it as joined.
    func received(_ reply: HTTPReply, request: OutboundRequest, sentAt: UInt64, now: UInt64) {
        guard reply.statusCode == 200 else {
            progress.errors.record { "\(request.summary) -> \(reply.summary())" }
            return
        }
        progress.markHeartbeat()
        if sent <= uuids.count { progress.markJoined() }
        latencies.append(now - sentAt)
    }

    /// Counts a lost heartbeat as an error.
    func connectionLost(request: OutboundRequest?, error: (any Error)?) {
        guard !progress.areHeartbeatsStopped, request != nil || error != nil else { return }
        progress.errors.record { ErrorLog.loss(request: request, error: error) }
    }

    /// The uuid of number `index`.
    static func name(_ index: Int) -> String { "load-\(index)" }
}
