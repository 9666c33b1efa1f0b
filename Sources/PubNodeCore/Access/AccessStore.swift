/// Where the node keeps what Access Manager and the admin API must not forget across a restart:
/// the keysets created at run time (secrets included) and the revoked tokens (each until it would
/// have expired anyway). GRDB's `AppDatabase` shape: a small protocol, an in-memory implementation
/// here, a SQLite one in its own module.
public protocol AccessStore: Sendable {
    /// Every created keyset.
    func keysets() throws(AccessStoreError) -> [StoredKeyset]
    /// Inserts or replaces a created keyset.
    func save(_ keyset: StoredKeyset) throws(AccessStoreError)
    /// Forgets a created keyset and its revocations.
    func delete(subscribeKey: String) throws(AccessStoreError)
    /// Records a revoked token.
    func revoke(_ revocation: Revocation) throws(AccessStoreError)
    /// Every revocation still in force at `now` (unix seconds); expired ones may be dropped.
    func revocations(now: UInt64) throws(AccessStoreError) -> [Revocation]
}

/// A keyset created through the admin API, as stored.
public struct StoredKeyset: Sendable, Equatable {
    /// Its keys (secret included) and settings.
    public var keyset: Keyset
    /// Whether the operator disabled it.
    public var disabled: Bool

    /// Describes a stored keyset.
    public init(keyset: Keyset, disabled: Bool = false) {
        self.keyset = keyset
        self.disabled = disabled
    }
}

/// A revoked token: refused until `expiresAt`, when it would be refused as expired anyway.
public struct Revocation: Sendable, Hashable {
    /// The keyset that issued it.
    public var subscribeKey: String
    /// The token's identity: its signature, in lowercase hex.
    public var tokenID: String
    /// Unix seconds when the token expires.
    public var expiresAt: UInt64

    /// Describes a revocation.
    public init(subscribeKey: String, tokenID: String, expiresAt: UInt64) {
        self.subscribeKey = subscribeKey
        self.tokenID = tokenID
        self.expiresAt = expiresAt
    }
}

/// A failure of the access store.
public struct AccessStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    public var description: String

    /// Wraps a failure's description.
    public init(_ description: String) { self.description = description }
}
