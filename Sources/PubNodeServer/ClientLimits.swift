import PubNodeCore
import Synchronization

/// Limits per client address, applied by the HTTP front before a request reaches the router:
/// open connections per address and requests per second per address. An address is the key
/// `ClientAddress` gives (an IPv4 address or an IPv6 /64 network; ports are ignored), so every
/// connection of one host shares its limits.
///
/// Thread-safe and shared by every connection of a server: connection counts and rate buckets are
/// sharded by address, and the refusal counters are atomics.
public final class ClientLimits: Sendable {
    /// Most open connections per address (0 = unlimited).
    public let maxConnections: Int
    /// Requests per second per address (0 = unlimited).
    public let requestsPerSecond: Double
    /// Most open connections to the whole node (0 = unlimited).
    public let maxNodeConnections: Int
    /// Most parked long-polls per address (0 = unlimited).
    public let maxParkedPerAddress: Int
    /// Whether loopback and private addresses (`ClientAddress.isPrivate`) are exempt from the
    /// per-address limits: behind a reverse proxy every client shares the proxy's address.
    public let exemptsPrivateAddresses: Bool
    private let connections = ConnectionCounter()
    private let parked = ConnectionCounter()
    private let nodeConnections = Atomic<Int>(0)
    private let refusedPolls = Atomic<Int>(0)
    private let requests: KeyedRateLimiter<String>
    private let refusedConnectionCount = Atomic<Int>(0)

    /// Limits of `maxConnections` open connections and `requestsPerSecond` requests a second
    /// (burst: one second's worth) per address; 0 turns either off. `clock` times the requests.
    /// `maxNodeConnections` bounds the node's connections from all addresses together and
    /// `maxParkedPerAddress` the long-polls one address may have parked (0: unlimited).
    /// `exemptPrivateAddresses` leaves loopback and private addresses out of the per-address limits.
    public init(maxConnections: Int = 0, requestsPerSecond: Double = 0, maxNodeConnections: Int = 0,
                maxParkedPerAddress: Int = 0, exemptPrivateAddresses: Bool = false, clock: any WallClock = SystemWallClock()) {
        self.exemptsPrivateAddresses = exemptPrivateAddresses
        self.maxConnections = max(0, maxConnections)
        self.maxNodeConnections = max(0, maxNodeConnections)
        self.maxParkedPerAddress = max(0, maxParkedPerAddress)
        self.requestsPerSecond = requestsPerSecond > 0 && requestsPerSecond.isFinite ? requestsPerSecond : 0
        self.requests = KeyedRateLimiter(perSecond: self.requestsPerSecond, clock: clock)
    }

    /// The limits a server configuration asks for.
    public convenience init(_ configuration: ServerConfiguration, clock: any WallClock = SystemWallClock()) {
        self.init(maxConnections: configuration.maxConnectionsPerClient,
                  requestsPerSecond: configuration.clientRequestsPerSecond,
                  maxNodeConnections: configuration.maxConnections,
                  maxParkedPerAddress: configuration.maxParkedPerClient,
                  exemptPrivateAddresses: configuration.exemptPrivateClients, clock: clock)
    }

    /// Counts a new connection from `address`; false (and counted as refused) when the address
    /// already has `maxConnections` open. Each true answer must be matched by one `closeConnection`.
    public func openConnection(from address: String) -> Bool {
        let opened = connections.open(address, limit: maxConnections)
        if !opened { refusedConnectionCount.add(1, ordering: .relaxed) }
        return opened
    }

    /// Counts a connection that `openConnection` admitted as closed.
    public func closeConnection(from address: String) {
        connections.close(address)
    }

    /// Counts a new connection to the node; false when it already has `maxNodeConnections`.
    /// Each true answer must be matched by one `closeNodeConnection`.
    public func openNodeConnection() -> Bool {
        guard maxNodeConnections > 0 else { return true }
        let count = nodeConnections.add(1, ordering: .relaxed).newValue
        guard count > maxNodeConnections else { return true }
        nodeConnections.subtract(1, ordering: .relaxed)
        return false
    }

    /// Counts a connection `openNodeConnection` admitted as closed.
    public func closeNodeConnection() {
        guard maxNodeConnections > 0 else { return }
        nodeConnections.subtract(1, ordering: .relaxed)
    }

    /// Counts a long-poll from `address` about to park; false (and counted as refused) when the
    /// address already has `maxParkedPerAddress` parked. Each true answer must be matched by one
    /// `unparkPoll`.
    public func parkPoll(from address: String) -> Bool {
        guard maxParkedPerAddress > 0 else { return true }
        let parked = parked.open(address, limit: maxParkedPerAddress)
        if !parked { refusedPolls.add(1, ordering: .relaxed) }
        return parked
    }

    /// Counts a long-poll `parkPoll` admitted as no longer parked.
    public func unparkPoll(from address: String) {
        guard maxParkedPerAddress > 0 else { return }
        parked.close(address)
    }

    /// Open connections counted for `address`.
    public func openConnections(from address: String) -> Int {
        connections.count(address)
    }

    /// Admits one request from `address`: nil when admitted, else the seconds for `Retry-After`.
    public func admitRequest(from address: String) -> Int? {
        guard requestsPerSecond > 0 else { return nil }
        return requests.admit(address)
    }

    /// The limits and counters.
    public func snapshot() -> ClientLimitsStats {
        let tracked = Set(connections.addresses()).union(requests.keys()).count
        return ClientLimitsStats(maxConnections: maxConnections, requestsPerSecond: requestsPerSecond,
                                 trackedAddresses: tracked,
                                 refusedConnections: refusedConnectionCount.load(ordering: .relaxed),
                                 refusedRequests: requests.refused, maxNodeConnections: maxNodeConnections,
                                 maxParkedPerAddress: maxParkedPerAddress,
                                 refusedPolls: refusedPolls.load(ordering: .relaxed))
    }
}

/// What `ClientLimits` is set to and has done.
public struct ClientLimitsStats: Sendable, Equatable {
    /// Most open connections per address (0 = unlimited).
    public var maxConnections: Int
    /// Requests per second per address (0 = unlimited).
    public var requestsPerSecond: Double
    /// Addresses with state held: open connections counted or a rate bucket not yet refilled.
    public var trackedAddresses: Int
    /// Connections refused for being over the per-address limit.
    public var refusedConnections: Int
    /// Requests refused for being over the per-address rate.
    public var refusedRequests: Int
    /// Most open connections to the node (0 = unlimited).
    public var maxNodeConnections: Int
    /// Most parked long-polls per address (0 = unlimited).
    public var maxParkedPerAddress: Int
    /// Long-polls refused for being over the per-address parked limit.
    public var refusedPolls: Int

    /// Creates a snapshot.
    public init(maxConnections: Int, requestsPerSecond: Double, trackedAddresses: Int, refusedConnections: Int,
                refusedRequests: Int, maxNodeConnections: Int = 0, maxParkedPerAddress: Int = 0, refusedPolls: Int = 0) {
        self.maxNodeConnections = maxNodeConnections
        self.maxParkedPerAddress = maxParkedPerAddress
        self.refusedPolls = refusedPolls
        self.maxConnections = maxConnections
        self.requestsPerSecond = requestsPerSecond
        self.trackedAddresses = trackedAddresses
        self.refusedConnections = refusedConnections
        self.refusedRequests = refusedRequests
    }
}
