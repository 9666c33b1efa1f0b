import PubNodeAccessWire
import Synchronization

/// Access Manager for the node's keysets: checks a request's signature or token against what the
/// operation needs, issues and revokes tokens. `Node.authorize` consults it for every keyset
/// request; `Docs/security.md` gives the rules.
///
/// - A keyset without Access Manager is open: signatures and tokens are not looked at, except
///   on grant and revoke.
/// - A request carrying a valid `signature` (made with the keyset's secret, `timestamp` within
///   ±`signatureWindow` seconds) acts as the secret's holder: everything is allowed. A bad or
///   stale one is refused, whatever else the request carries.
/// - Grant and revoke need such a signature.
/// - Otherwise a request needs `auth=` holding a token
///   signed with the keyset's current secret, unexpired, not revoked, for the caller's uuid when
///   it names one, granting every permission the operation needs (PubNub's mapping, notes §2.3).
final class AccessControl: Sendable {
    /// Seconds a signature's `timestamp` may differ from the node's clock.
    static let signatureWindow: UInt64 = 60

    let clock: TimetokenClock
    let store: any AccessStore
    private let cache = TokenCache()
    /// Revoked token ids by subscribe key, with their expiry; read only when the cache misses.
    private let revoked: Mutex<[String: [String: UInt64]]>

    /// Access control over `store` (call `restore()` to load its revocations).
    init(clock: TimetokenClock, store: any AccessStore) {
        self.clock = clock
        self.store = store
        revoked = Mutex([:])
    }

    /// Loads the revocations in force from the store.
    func restore() throws(AccessStoreError) {
        var loaded: [String: [String: UInt64]] = [:]
        for revocation in try store.revocations(now: now) {
            loaded[revocation.subscribeKey, default: [:]][revocation.tokenID] = revocation.expiresAt
        }
        revoked.withLock { $0 = loaded }
    }

    /// Unix seconds now.
    var now: UInt64 { clock.nowNanoseconds() / 1_000_000_000 }

    /// Whether `check` looks at a request of `operation` on `keyset` at all: where the keyset
    /// enforces Access Manager, and for granting or revoking tokens (signed with the secret key)
    /// on any keyset. Any other request is allowed without being read.
    static func applies(to operation: AccessRequest.Operation, on keyset: ServedKeyset) -> Bool {
        keyset.accessManager || operation.managesTokens
    }

    /// Allows `request` on `keyset` or throws PubNub's refusal.
    func check(_ request: AccessRequest, keyset: ServedKeyset) throws(PubNodeError) {
        guard Self.applies(to: request.operation, on: keyset) else { return }
        let administers = request.operation.managesTokens
        if let signed = request.signature {
            try verify(signed, publishKey: request.publishKey, keyset: keyset)
            return
        }
        if administers {
            throw .accessRefused("Signature is required: sign the request with the keyset's secret key")
        }
        let needed = Self.needed(request)
        guard let auth = request.authKey, !auth.isEmpty else { throw Self.denial(needed) }
        let token = try verifiedToken(auth, keyset: keyset)
        if let authorized = token.authorizedUUID, authorized != request.uuid {
            throw .accessRefused("Token is not authorized for this uuid")
        }
        if request.operation == .globalHereNow || request.operation == .listGroups || request.operation.listsAllObjects {
            throw Self.denial([])
        }
        var budget = Self.patternBudget
        var denied: [AccessRequest.Resource] = []
        for resource in needed where !token.allows(resource, budget: &budget) { denied.append(resource) }
        guard budget >= 0 else { throw .accessRefused("The token's patterns are too costly to check for this many resources") }
        if !denied.isEmpty { throw Self.denial(denied) }
    }

    /// Pattern-matching steps (program size × name length) one request may cost: a few
    /// milliseconds at most, whatever the token and the resources.
    static let patternBudget = 4_000_000

    /// The resources a token must grant for `request`, per PubNub's mapping: leave and where-now
    /// (and on-request hooks, which name none) need a valid token and nothing more. Global
    /// here-now and listing every group (whole-keyset views) need the secret.
    private static func needed(_ request: AccessRequest) -> [AccessRequest.Resource] {
        switch request.operation {
        case .leave, .whereNow: return []
        default: return request.resources
        }
    }

    private static func denial(_ resources: [AccessRequest.Resource]) -> PubNodeError {
        .accessDenied(channels: resources.filter { $0.kind == .channel }.map(\.name),
                      groups: resources.filter { $0.kind == .group }.map(\.name),
                      uuids: resources.filter { $0.kind == .uuid }.map(\.name))
    }

    private func verify(_ signed: SignedRequest, publishKey: String?, keyset: ServedKeyset) throws(PubNodeError) {
        guard let secret = keyset.secretKey else {
            throw .accessRefused("Signature does not match: the keyset has no secret key")
        }
        var keys = [keyset.publishKey]
        if let publishKey, publishKey != keyset.publishKey, keyset.publishKeys.contains(publishKey) {
            keys.insert(publishKey, at: 0)
        }
        var outcome = SignatureCheck.mismatch
        for key in keys {
            outcome = RequestSignature.verify(method: signed.method, path: signed.path, rawQuery: signed.rawQuery,
                                              body: signed.body, publishKey: key, subscribeKey: keyset.subscribeKey,
                                              secret: secret, now: now, window: Self.signatureWindow)
            if outcome != .mismatch { break }
        }
        switch outcome {
        case .valid: return
        case .missing: throw .accessRefused("Signature does not match: timestamp and signature are both required")
        case .stale: throw .accessRefused("Signature does not match: timestamp is more than 60 seconds off")
        case .mismatch: throw .accessRefused("Signature does not match")
        }
    }

    /// The token `text` verified for `keyset`: from the cache when it was verified under the
    /// keyset's current secret, else decoded, checked and cached.
    private func verifiedToken(_ text: String, keyset: ServedKeyset) throws(PubNodeError) -> VerifiedToken {
        let now = self.now
        if let cached = cache.get(text), cached.subscribeKey == keyset.subscribeKey,
           cached.generation == keyset.generation {
            guard cached.expiresAt > now else { throw .accessRefused("Token is expired") }
            return cached
        }
        let generation = keyset.generation
        // Only the exact text the node issued is accepted (no other base64 alphabet, padding or
        // CBOR encoding of the same content), so each token has one cache entry.
        guard let key = keyset.tokenKey, let token = try? AccessToken.decode(text), token.encoded() == text,
              token.isSigned(by: key),
              let verified = try? VerifiedToken(token, subscribeKey: keyset.subscribeKey, generation: generation) else {
            throw .accessRefused("Invalid token")
        }
        guard verified.expiresAt > now else { throw .accessRefused("Token is expired") }
        if isRevoked(verified.id, keyset: keyset.subscribeKey) { throw .accessRefused("Token is revoked") }
        cache.put(text, verified)
        // A revocation that landed between the check and the insertion found nothing to drop:
        // look again now that the token is visible to it.
        if isRevoked(verified.id, keyset: keyset.subscribeKey) {
            cache.removeAll { $0.id == verified.id }
            throw .accessRefused("Token is revoked")
        }
        return verified
    }

    private func isRevoked(_ id: String, keyset subscribeKey: String) -> Bool {
        revoked.withLock { $0[subscribeKey]?[id] != nil }
    }

    /// The revocation of `token`, as the store records it.
    static func revocation(_ token: AccessToken, keyset: ServedKeyset) -> Revocation {
        Revocation(subscribeKey: keyset.subscribeKey, tokenID: Hex.encode(token.signature), expiresAt: token.expiresAt)
    }

    /// Refuses the tokens of `revocations` from now on (recorded in the store already, by this
    /// node or another); answers how many were not refused before. Expired entries are dropped.
    @discardableResult
    func apply(_ revocations: [Revocation]) -> Int {
        let now = self.now
        let fresh: Set<String> = revoked.withLock { revoked in
            var fresh: Set<String> = []
            for revocation in revocations where revocation.expiresAt > now
                && revoked[revocation.subscribeKey]?[revocation.tokenID] == nil {
                revoked[revocation.subscribeKey, default: [:]][revocation.tokenID] = revocation.expiresAt
                fresh.insert(revocation.tokenID)
            }
            if !fresh.isEmpty {
                for key in Set(revocations.map(\.subscribeKey)) { revoked[key] = revoked[key]?.filter { $0.value > now } }
            }
            return fresh
        }
        if !fresh.isEmpty { cache.removeAll { fresh.contains($0.id) } }
        return fresh.count
    }

    /// Bumped each time a tenants API change of a keyset ends, so a reconcile that read the store
    /// before it can tell its snapshot may be older than the node (see `Node.reconcileAccess`).
    let keysetChangesEnded = Atomic<UInt64>(0)
    /// Where the reconcile's next read of revocations starts (the store's cursor).
    let revocationCursor = Mutex<Int64?>(nil)

    /// Forgets everything of a deleted keyset.
    func forget(_ subscribeKey: String) {
        _ = revoked.withLock { $0.removeValue(forKey: subscribeKey) }
        cache.removeAll { $0.subscribeKey == subscribeKey }
    }
}
