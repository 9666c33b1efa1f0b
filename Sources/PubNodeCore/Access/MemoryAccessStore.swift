import Synchronization

/// An access store kept in memory: created keysets and revocations last as long as the process.
public final class MemoryAccessStore: AccessStore {
    private struct Contents {
        var keysets: [String: StoredKeyset] = [:]
        var revocations: Set<Revocation> = []
    }

    private let contents = Mutex(Contents())

    /// An empty store.
    public init() {}

    /// Every created keyset, by subscribe key.
    public func keysets() throws(AccessStoreError) -> [StoredKeyset] {
        contents.withLock { $0.keysets.values.sorted { $0.keyset.subscribeKey < $1.keyset.subscribeKey } }
    }

    /// Inserts or replaces a created keyset.
    public func save(_ keyset: StoredKeyset) throws(AccessStoreError) {
        contents.withLock { $0.keysets[keyset.keyset.subscribeKey] = keyset }
    }

    /// Forgets a created keyset and its revocations.
    public func delete(subscribeKey: String) throws(AccessStoreError) {
        contents.withLock { contents in
            contents.keysets[subscribeKey] = nil
            contents.revocations = contents.revocations.filter { $0.subscribeKey != subscribeKey }
        }
    }

    /// Records a revoked token.
    public func revoke(_ revocation: Revocation) throws(AccessStoreError) {
        _ = contents.withLock { $0.revocations.insert(revocation) }
    }

    /// The revocations in force at `now`; expired ones are dropped.
    public func revocations(now: UInt64) throws(AccessStoreError) -> [Revocation] {
        contents.withLock { contents in
            contents.revocations = contents.revocations.filter { $0.expiresAt > now }
            return Array(contents.revocations)
        }
    }
}
