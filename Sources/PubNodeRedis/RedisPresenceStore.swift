import Logging
import PubNodeCore
import Synchronization

/// A cluster's presence: every keyset's in Redis (`RedisPresence`), so here-now and where-now on
/// any node list the users of every node, and each join, leave, timeout and state change is
/// decided once in Redis and announced by the node that caused it (or whose sweep found it).
public final class RedisPresenceStore: PresenceManager {
    let hubs: MemoryHubs
    let broker: RedisBroker
    let observer: @Sendable (String) -> (@Sendable (PresenceEvent) -> Void)?
    /// When each uuid's presence was last written, and for which target: a poll refreshes it in
    /// Redis only after a quarter of its timeout, so the hot path costs a lookup, not a write.
    let marks = ShardedMap<String, HeartbeatMark>(shardCount: 16)
    let sweeping = Atomic<Bool>(false)

    /// Presence of `broker`'s keysets (in the same hubs); `observer` gives each keyset's
    /// after-presence hooks.
    public init(broker: RedisBroker,
                observer: @escaping @Sendable (String) -> (@Sendable (PresenceEvent) -> Void)? = { _ in nil }) {
        self.hubs = broker.hubs
        self.broker = broker
        self.observer = observer
        let marks = self.marks
        broker.cluster.onLeft.withLock { handler in
            handler = { subscribeKey, uuid in _ = marks.remove(subscribeKey + "\u{0}" + uuid) { _ in true } }
        }
    }

    /// The presence of `subscribeKey`, if open.
    public func keyset(_ subscribeKey: String) -> (any KeysetPresence)? { hubs.hub(subscribeKey).map(keysetPresence) }

    /// Opens `keyset`'s presence.
    public func open(_ keyset: Keyset) -> any KeysetPresence { keysetPresence(hubs.open(keyset)) }

    /// Drops `subscribeKey`'s local state (with its hub).
    public func close(_ subscribeKey: String) { hubs.close(subscribeKey) }

    /// Every open keyset.
    public var allKeysets: [any KeysetPresence] { hubs.all.map(keysetPresence) }

    private func keysetPresence(_ hub: ChannelHub) -> any KeysetPresence {
        RedisKeysetPresence(hub: hub, store: self)
    }
}

/// When a uuid's presence was last written to Redis, and for which target.
final class HeartbeatMark: Sendable {
    struct Last {
        var target: String
        var nanoseconds: UInt64
    }

    let last: Mutex<Last>

    init(target: String, nanoseconds: UInt64) {
        last = Mutex(Last(target: target, nanoseconds: nanoseconds))
    }
}

extension RedisPresenceStore {
    /// Whether a heartbeat for `uuid` on `target` must be written now (and marks it written):
    /// yes when the target changed, or `interval` passed since the last write.
    func due(subscribeKey: String, uuid: String, target: String, now: UInt64, interval: UInt64) -> Bool {
        var created = false
        let mark = marks.getOrCreate(subscribeKey + "\u{0}" + uuid) {
            created = true
            return HeartbeatMark(target: target, nanoseconds: now)
        }
        if created { return true }
        return mark.last.withLock { last in
            guard last.target != target || now &- last.nanoseconds >= interval else { return false }
            last = HeartbeatMark.Last(target: target, nanoseconds: now)
            return true
        }
    }

    /// Forgets the mark of `uuid`, so its next poll writes its presence again.
    func forget(subscribeKey: String, uuid: String) {
        _ = marks.remove(subscribeKey + "\u{0}" + uuid) { _ in true }
    }

    /// Drops marks not written for `age`.
    func dropMarks(olderThan age: UInt64, now: UInt64) {
        marks.removeAll { _, mark in mark.last.withLock { now &- $0.nanoseconds > age } }
    }
}
