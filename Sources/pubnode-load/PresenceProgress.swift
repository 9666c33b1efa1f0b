import Synchronization

/// Counters and switches shared by the drivers of a presence run.
final class PresenceProgress: Sendable {
    /// Uuids that have sent their first heartbeat successfully.
    private let joinedCount = Atomic<Int>(0)
    /// Successful heartbeats.
    private let heartbeatCount = Atomic<Int>(0)
    /// Last occupancy read by a here-now probe (-1 before the first).
    private let occupancyValue = Atomic<Int>(-1)
    /// Set to stop the heartbeat drivers (their uuids then time out).
    private let heartbeatsStopped = Atomic<Bool>(false)
    /// Set to stop the probes (here-now and publish samplers).
    private let probesStopped = Atomic<Bool>(false)
    /// Heartbeat errors.
    let errors = ErrorLog()
    /// Probe errors (here-now, publish).
    let probeErrors = ErrorLog()

    /// Creates zeroed counters.
    init() {}

    /// Counts one uuid's first successful heartbeat.
    func markJoined() { joinedCount.add(1, ordering: .relaxed) }
    /// Counts one successful heartbeat.
    func markHeartbeat() { heartbeatCount.add(1, ordering: .relaxed) }
    /// Records the occupancy a probe read.
    func record(occupancy: Int) { occupancyValue.store(occupancy, ordering: .relaxed) }
    /// Stops the heartbeat drivers.
    func stopHeartbeats() { heartbeatsStopped.store(true, ordering: .relaxed) }
    /// Stops the probes.
    func stopProbes() { probesStopped.store(true, ordering: .relaxed) }

    /// Uuids that have joined.
    var joined: Int { joinedCount.load(ordering: .relaxed) }
    /// Successful heartbeats so far.
    var heartbeats: Int { heartbeatCount.load(ordering: .relaxed) }
    /// Last occupancy read by a probe (-1 before the first).
    var occupancy: Int { occupancyValue.load(ordering: .relaxed) }
    /// Whether the heartbeat drivers should stop.
    var areHeartbeatsStopped: Bool { heartbeatsStopped.load(ordering: .relaxed) }
    /// Whether the probes should stop.
    var areProbesStopped: Bool { probesStopped.load(ordering: .relaxed) }
}
