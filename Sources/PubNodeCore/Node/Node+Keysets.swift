extension Node {
    /// Loads what the access store kept: the keysets created at run time (served again, with
    /// their seams opened) and the revocations in force. Call it once, before serving.
    public func restoreAccess() throws(AccessStoreError) {
        try access.restore()
        for stored in try access.store.keysets() {
            _ = registry.add(serve(stored.keyset, disabled: stored.disabled))
        }
    }

    /// The tenants API: creates, lists, rotates, disables and deletes keysets at run time.
    public func administerKeysets(_ request: KeysetAdminRequest) async throws(PubNodeError) -> KeysetAdminResult {
        try authorizeAdmin(credential: request.credential)
        let key: String?
        switch request.action {
        case .create(let spec): key = spec.subscribeKey
        case .rotate(let subscribeKey), .disable(let subscribeKey, _), .delete(let subscribeKey): key = subscribeKey
        case .list, .unknown: key = nil
        }
        if let key {
            guard keysetChanges.withLock({ $0.insert(key).inserted }) else {
                throw .invalidParameter("keyset '\(key)' is being changed by another request; try again")
            }
        }
        defer {
            if let key {
                access.keysetChangesEnded.add(1, ordering: .releasing)
                _ = keysetChanges.withLock { $0.remove(key) }
            }
        }
        switch request.action {
        case .list:
            return .keysets(registry.all.map { Self.info($0, revealing: false) })
        case .create(let spec):
            return .keyset(try create(spec))
        case .rotate(let subscribeKey):
            let keyset = try createdKeyset(subscribeKey)
            let previous = keyset.secretKey
            keyset.replaceSecret(KeyGenerator.key(prefix: "sec-c-"))
            do { try persist(keyset) } catch {
                if let previous { keyset.replaceSecret(previous) }
                throw error
            }
            return .keyset(Self.info(keyset, revealing: true))
        case .disable(let subscribeKey, let disabled):
            let keyset = try createdKeyset(subscribeKey)
            keyset.setDisabled(disabled)
            do { try persist(keyset) } catch {
                keyset.setDisabled(!disabled)
                throw error
            }
            return .keyset(Self.info(keyset, revealing: false))
        case .delete(let subscribeKey):
            try await delete(try createdKeyset(subscribeKey))
            return .deleted(subscribeKey)
        case .unknown:
            throw .notFound("No such keysets endpoint")
        }
    }

    private func create(_ spec: KeysetSpec) throws(PubNodeError) -> KeysetInfo {
        for key in [spec.publishKey, spec.subscribeKey].compactMap({ $0 }) where !KeyGenerator.isValid(key) {
            throw .invalidParameter("keys are 1 to 64 letters, digits, '-' or '_' (got '\(key.prefix(70))')")
        }
        try spec.rateLimits?.validate()
        let keyset = Keyset(publishKey: spec.publishKey ?? KeyGenerator.key(prefix: "pub-c-"),
                            subscribeKey: spec.subscribeKey ?? KeyGenerator.key(prefix: "sub-c-"),
                            secretKey: KeyGenerator.key(prefix: "sec-c-"), accessManager: spec.accessManager,
                            rateLimits: spec.rateLimits, appContextEvents: spec.appContextEvents)
        guard registry.keyset(keyset.subscribeKey) == nil else {
            throw .invalidParameter("subscribe key '\(keyset.subscribeKey)' is already served")
        }
        let served = serve(keyset, disabled: false)
        try persist(served)
        guard registry.add(served) else {
            try? access.store.delete(subscribeKey: keyset.subscribeKey)
            throw .invalidParameter("subscribe key '\(keyset.subscribeKey)' is already served")
        }
        return Self.info(served, revealing: true)
    }

    /// Deletes in the order that never leaves a keyset's history behind it: the keyset is
    /// refused at once, its history is purged while it still exists (a failure leaves it there,
    /// disabled, for the operator to delete again), then it is forgotten everywhere, and anything a
    /// publish, message action or App Context change authorized just before the refusal stored
    /// meanwhile is purged once more.
    private func delete(_ keyset: ServedKeyset) async throws(PubNodeError) {
        let subscribeKey = keyset.subscribeKey
        keyset.setDisabled(true)
        // Stored disabled first, so nodes sharing the store refuse it too while it is purged.
        do { try persist(keyset) } catch {
            keyset.setDisabled(false)
            throw error
        }
        try await purgeHistory(subscribeKey)
        do { try objects.deleteKeyset(subscribeKey) } catch {
            throw .storageFailed("the keyset's App Context objects could not be deleted (it stays disabled; delete it again)")
        }
        do { try access.store.delete(subscribeKey: subscribeKey) } catch {
            throw .storageFailed("cannot delete the keyset (it stays disabled; delete it again): \(error.description)")
        }
        guard registry.remove(subscribeKey) === keyset else { throw .notFound("No keyset '\(subscribeKey)'") }
        broker.close(subscribeKey)
        presence.close(subscribeKey)
        access.forget(subscribeKey)
        try await purgeHistory(subscribeKey)
        // An App Context change authorized just before the refusal may have been stored meanwhile.
        do { try objects.deleteKeyset(subscribeKey) } catch {
            throw .storageFailed("the keyset's App Context objects could not be deleted: \(error)")
        }
    }

    private func purgeHistory(_ subscribeKey: String) async throws(PubNodeError) {
        let actions = messageActions
        _ = try await readHistory { () throws(PubNodeError) in
            do throws(HistoryError) { try actions.deleteAll(subscribeKey: subscribeKey) } catch {
                throw .storageFailed("the keyset's message actions could not be deleted (it stays disabled; delete it again): \(error.description)")
            }
        }
        guard let history else { return }
        do { _ = try await history.deleteKeyset(subscribeKey) } catch {
            throw .storageFailed("the keyset's history could not be deleted (it stays disabled; delete it again): \(error.description)")
        }
    }

    /// `keyset` served as created at run time, its seams opened (not yet in the registry).
    func serve(_ keyset: Keyset, disabled: Bool) -> ServedKeyset {
        ServedKeyset([keyset], origin: .created, disabled: disabled, broker: broker.open(keyset),
                     presence: presence.open(keyset), defaultLimits: keysetRateLimits, clock: clock)
    }

    private func createdKeyset(_ subscribeKey: String) throws(PubNodeError) -> ServedKeyset {
        guard let keyset = registry.keyset(subscribeKey) else { throw .notFound("No keyset '\(subscribeKey)'") }
        guard keyset.origin == .created else {
            throw .forbidden("keyset '\(subscribeKey)' comes from the node's configuration: change it there")
        }
        return keyset
    }

    private func persist(_ keyset: ServedKeyset) throws(PubNodeError) {
        do { try access.store.save(StoredKeyset(keyset: keyset.keyset, disabled: keyset.isDisabled)) } catch {
            throw .storageFailed("cannot store the keyset: \(error.description)")
        }
    }

    private static func info(_ keyset: ServedKeyset, revealing: Bool) -> KeysetInfo {
        var description = keyset.keyset
        if !revealing { description.secretKey = nil }
        return KeysetInfo(keyset: description, disabled: keyset.isDisabled, origin: keyset.origin,
                          requests: keyset.requestLimiter?.snapshot(), publishes: keyset.publishLimiter?.snapshot())
    }
}
