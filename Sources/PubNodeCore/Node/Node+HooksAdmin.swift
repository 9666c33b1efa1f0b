extension Node {
    /// Each after hook's queue depth and counters, for the operator holding `credential`.
    public func hookStats(credential: String?) throws(PubNodeError) -> [HookStats] {
        try authorizeAdmin(credential, hook: nil)
        return hooks.stats()
    }

    /// Events whose retries ran out, oldest first, at most `limit` (1…1000); of one hook or all.
    public func deadLetters(hook: String?, limit: Int, credential: String?) throws(PubNodeError) -> [OutboxRecord] {
        try authorizeAdmin(credential, hook: hook)
        guard (1...1000).contains(limit) else { throw .invalidParameter("limit must be 1...1000") }
        return hooks.deadLetters(hook: hook, limit: limit)
    }

    /// Queues dead letters again (of one hook or all; only `ids` when given); returns how many.
    public func replayDeadLetters(hook: String?, ids: Set<UInt64>?, credential: String?) async throws(PubNodeError) -> Int {
        try authorizeAdmin(credential, hook: hook)
        return await hooks.replay(hook: hook, ids: ids)
    }

    private func authorizeAdmin(_ credential: String?, hook: String?) throws(PubNodeError) {
        try authorize(AccessRequest(.administer, subscribeKey: nil, adminCredential: credential))
        if let hook, !hooks.hasAfterHook(named: hook) { throw .notFound("No after hook named '\(hook)'") }
    }
}
