/// What one `Node.reconcileAccess()` changed on the node.
public struct AccessReconciliation: Sendable, Equatable {
    /// Keysets created elsewhere, now served.
    public var added: [String] = []
    /// Keysets deleted elsewhere, now closed.
    public var removed: [String] = []
    /// Keysets whose disabled flag, secret or settings changed elsewhere, now updated.
    public var updated: [String] = []
    /// Keysets that differ but were being changed here meanwhile: left for the next reconcile.
    public var deferred: [String] = []
    /// Revocations recorded elsewhere, now refused here.
    public var revoked = 0

    /// Nothing changed.
    public init() {}

    /// Whether anything changed or was deferred.
    public var isEmpty: Bool { self == AccessReconciliation() }
}

extension Node {
    /// Brings the node in line with an access store that other nodes write too (PostgreSQL): the
    /// keysets created at run time and the revocations are kept in memory (`restoreAccess` reads
    /// them at start), so another node's changes reach this one only through this call, which the
    /// runtime makes every 2 seconds when the store is shared (never for a node's own store).
    ///
    /// One read of the keysets and one of the revocations recorded since the previous call (on the
    /// node's read queue), then the differences: new keysets served, deleted ones closed (their
    /// data is purged by the node that deleted them), a changed disabled flag or secret applied in
    /// place, other changed settings served anew; new revocations refused. A keyset that a
    /// tenants API request changes here meanwhile is left for the next call, so a snapshot older
    /// than the node's own change never undoes it.
    @discardableResult
    public func reconcileAccess() async throws(PubNodeError) -> AccessReconciliation {
        let changesBefore = access.keysetChangesEnded.load(ordering: .acquiring)
        let store = access.store, now = access.now, cursor = access.revocationCursor.withLock { $0 }
        let (stored, page) = try await readHistory { () throws(PubNodeError) -> ([StoredKeyset], RevocationPage) in
            do throws(AccessStoreError) { return (try store.keysets(), try store.revocations(now: now, since: cursor)) } catch {
                throw .storageFailed("cannot read the access store: \(error.description)")
            }
        }
        var report = AccessReconciliation()
        report.revoked = access.apply(page.revocations)
        access.revocationCursor.withLock { $0 = page.cursor }
        let wanted = Dictionary(stored.map { ($0.keyset.subscribeKey, $0) }, uniquingKeysWith: { first, _ in first })
        var differing = registry.all.filter { $0.origin == .created && wanted[$0.subscribeKey] == nil }.map(\.subscribeKey)
        for (key, entry) in wanted {
            guard let served = registry.keyset(key) else { differing.append(key); continue }
            if served.origin == .created, Self.differs(served, entry) { differing.append(key) }
        }
        for key in differing.sorted() {
            guard keysetChanges.withLock({ $0.insert(key).inserted }) else { report.deferred.append(key); continue }
            defer { _ = keysetChanges.withLock { $0.remove(key) } }
            guard access.keysetChangesEnded.load(ordering: .acquiring) == changesBefore else {
                report.deferred.append(key)
                continue
            }
            follow(key, wanted[key], into: &report)
        }
        return report
    }

    /// Makes the keyset `key` what the store holds (`entry`; nil: deleted). Holds its change marker.
    private func follow(_ key: String, _ entry: StoredKeyset?, into report: inout AccessReconciliation) {
        let served = registry.keyset(key)
        if let served, served.origin != .created { return }
        guard let entry else {
            if let served { close(served) }
            report.removed.append(key)
            return
        }
        guard let served else {
            if registry.add(serve(entry.keyset, disabled: entry.disabled)) { report.added.append(key) }
            return
        }
        guard Self.differs(served, entry) else { return }
        if Self.settings(served.keyset) == Self.settings(entry.keyset) {
            if served.isDisabled != entry.disabled { served.setDisabled(entry.disabled) }
            if let secret = entry.keyset.secretKey, secret != served.secretKey { served.replaceSecret(secret) }
        } else {
            close(served)
            _ = registry.add(serve(entry.keyset, disabled: entry.disabled))
        }
        report.updated.append(key)
    }

    /// Stops serving a created keyset (its subscribers' connections end; its data stays).
    private func close(_ keyset: ServedKeyset) {
        guard registry.remove(keyset.subscribeKey) === keyset else { return }
        broker.close(keyset.subscribeKey)
        presence.close(keyset.subscribeKey)
        access.forget(keyset.subscribeKey)
    }

    private static func differs(_ served: ServedKeyset, _ entry: StoredKeyset) -> Bool {
        served.isDisabled != entry.disabled || served.secretKey != entry.keyset.secretKey
            || settings(served.keyset) != settings(entry.keyset)
    }

    /// What the store keeps of a keyset besides its secret and disabled flag (no limits and
    /// unlimited compare alike).
    private struct Settings: Equatable {
        var publishKey: String
        var accessManager: Bool
        var appContextEvents: Bool
        var limits: RateLimits
    }

    private static func settings(_ keyset: Keyset) -> Settings {
        Settings(publishKey: keyset.publishKey, accessManager: keyset.accessManager, appContextEvents: keyset.appContextEvents,
                 limits: keyset.rateLimits ?? .unlimited)
    }
}
