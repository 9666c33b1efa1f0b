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
    /// The revocations in force at `now` recorded since `cursor` (nil: all of them), and the
    /// cursor to pass next time: how a node follows a store that other nodes write too. A store
    /// may answer more than was recorded since (applying one twice is harmless), never less.
    func revocations(now: UInt64, since cursor: Int64?) throws(AccessStoreError) -> RevocationPage
}

extension AccessStore {
    /// Every revocation in force, with no cursor: each call answers them all.
    public func revocations(now: UInt64, since cursor: Int64?) throws(AccessStoreError) -> RevocationPage {
        RevocationPage(revocations: try revocations(now: now), cursor: nil)
    }
}

/// Revocations read from an access store, and where the next read may start.
public struct RevocationPage: Sendable, Equatable {
    /// The revocations.
    public var revocations: [Revocation]
    /// The cursor of the next read (nil: read them all again).
    public var cursor: Int64?

    /// Describes a page.
    public init(revocations: [Revocation], cursor: Int64?) {
        self.revocations = revocations
        self.cursor = cursor
    }
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
