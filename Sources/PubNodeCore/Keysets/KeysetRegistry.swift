/// Every keyset the node serves, found by subscribe key with one O(1) lookup.
///
/// Configured keysets sit in an immutable dictionary read without a lock; keysets created at run
/// time sit in a sharded map, consulted only when the first misses, so one tenant's requests never
/// contend with another's.
public final class KeysetRegistry: Sendable {
    private let configured: [String: ServedKeyset]
    private let created = ShardedMap<String, ServedKeyset>(shardCount: 16)

    /// Serves the configured `keysets`.
    init(configured keysets: [ServedKeyset]) {
        configured = Dictionary(keysets.map { ($0.subscribeKey, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The keyset of `subscribeKey`, if served.
    public func keyset(_ subscribeKey: String) -> ServedKeyset? {
        configured[subscribeKey] ?? created.get(subscribeKey)
    }

    /// Adds a created keyset; false when its subscribe key is already served.
    func add(_ keyset: ServedKeyset) -> Bool {
        guard configured[keyset.subscribeKey] == nil else { return false }
        var added = false
        _ = created.getOrCreate(keyset.subscribeKey) {
            added = true
            return keyset
        }
        return added
    }

    /// Removes a created keyset, which is then no longer served (`ServedKeyset.isServed`); nil when
    /// there is none by that key.
    func remove(_ subscribeKey: String) -> ServedKeyset? {
        guard let keyset = created.get(subscribeKey),
              created.remove(subscribeKey, if: { $0 === keyset }) else { return nil }
        keyset.withdraw()
        return keyset
    }

    /// Every keyset, configured first, each group sorted by subscribe key.
    public var all: [ServedKeyset] {
        configured.values.sorted { $0.subscribeKey < $1.subscribeKey }
            + created.values().sorted { $0.subscribeKey < $1.subscribeKey }
    }
}
