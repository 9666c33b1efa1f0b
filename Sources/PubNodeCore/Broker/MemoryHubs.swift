import Synchronization

/// The in-memory engine's hubs, one `ChannelHub` per subscribe key, shared by `MemoryBroker` and
/// `MemoryPresence` so a keyset's messages and presence live in one place.
///
/// Keysets configured at start and keysets created at run time both come from here. The map is
/// consulted only when a keyset is opened or closed and by sweeps: a request reaches its keyset's
/// hub through the node's registry, never through this lock.
public final class MemoryHubs: Sendable {
    private let hubs = Mutex<[String: ChannelHub]>([:])
    private let make: @Sendable (Keyset) -> ChannelHub

    /// Hubs made by `make` on first use of each subscribe key.
    public init(make: @escaping @Sendable (Keyset) -> ChannelHub) {
        self.make = make
    }

    /// Hubs with the node's `limits`, `clock` and `region`; each keyset's presence settings are its
    /// own overrides of `limits`, and its presence events go to `observer` (the hooks).
    public convenience init(limits: Limits, clock: TimetokenClock, region: Int = 1,
                            observer: @escaping @Sendable (String) -> (@Sendable (PresenceEvent) -> Void)? = { _ in nil }) {
        self.init { keyset in
            ChannelHub(subscribeKey: keyset.subscribeKey, limits: limits, clock: clock, region: region,
                       presence: keyset.presenceSettings(limits), presenceObserver: observer(keyset.subscribeKey))
        }
    }

    /// The hub of `keyset`, made on first use.
    public func open(_ keyset: Keyset) -> ChannelHub {
        hubs.withLock { hubs in
            if let hub = hubs[keyset.subscribeKey] { return hub }
            let hub = make(keyset)
            hubs[keyset.subscribeKey] = hub
            return hub
        }
    }

    /// The hub of `subscribeKey`, if open.
    public func hub(_ subscribeKey: String) -> ChannelHub? {
        hubs.withLock { $0[subscribeKey] }
    }

    /// Forgets `subscribeKey`'s hub and wakes everyone parked on it; returns whether it was open.
    @discardableResult
    public func close(_ subscribeKey: String) -> Bool {
        guard let hub = hubs.withLock({ $0.removeValue(forKey: subscribeKey) }) else { return false }
        hub.close().wakeAll()
        return true
    }

    /// Every open hub.
    public var all: [ChannelHub] { hubs.withLock { Array($0.values) } }
}
