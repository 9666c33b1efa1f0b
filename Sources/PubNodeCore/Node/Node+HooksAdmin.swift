/// An operator's call on the after hooks (`/v1/admin/hooks…`), as decoded from the wire: the
/// credential is checked before anything else is looked at.
public struct HookAdminRequest: Sendable {
    /// What is asked.
    public enum Action: Sendable, Equatable {
        /// Each hook's queue depth and counters.
        case stats
        /// Dead letters, oldest first; `limit` as given (1…1000, default 100).
        case deadLetters(limit: String?)
        /// Queue dead letters again; `ids` as given (comma-separated), all when nil.
        case replay(ids: String?)
        /// A path under `/v1/admin/hooks` that names no endpoint.
        case unknown
    }

    /// What is asked.
    public var action: Action
    /// The hook named (`hook=`), or nil for all.
    public var hook: String?
    /// The bearer token presented.
    public var credential: String?

    /// Creates an operator's request.
    public init(action: Action, hook: String? = nil, credential: String? = nil) {
        self.action = action
        self.hook = hook
        self.credential = credential
    }
}

/// What an operator's call answers.
public enum HookAdminResult: Sendable {
    /// Each hook's queue depth and counters.
    case stats([HookStats])
    /// Dead letters, oldest first.
    case deadLetters([OutboxRecord])
    /// An authorized replay, to run (`PendingReplay.run()`), which answers how many dead letters
    /// were queued again.
    case replay(PendingReplay)
}

/// An authorized replay of dead letters, waiting to run.
public struct PendingReplay: Sendable {
    let hooks: HookEngine
    let hook: String?
    let ids: Set<UInt64>?

    /// Queues the dead letters again; returns how many.
    public func run() async -> Int {
        await hooks.replay(hook: hook, ids: ids)
    }
}

extension Node {
    /// Shows and manages the after hooks' queues, for the operator holding the admin token.
    public func administerHooks(_ request: HookAdminRequest) throws(PubNodeError) -> HookAdminResult {
        try authorizeAdmin(credential: request.credential)
        if request.action == .unknown { throw .notFound("Not Found: no such endpoint") }
        if let hook = request.hook, !hooks.hasAfterHook(named: hook) { throw .notFound("No after hook named '\(hook)'") }
        switch request.action {
        case .stats, .unknown:
            return .stats(hooks.stats())
        case .deadLetters(let text):
            guard let limit = text.map({ Int($0) }) ?? 100 else { throw .invalidParameter("limit must be an integer") }
            guard (1...1000).contains(limit) else { throw .invalidParameter("limit must be 1...1000") }
            return .deadLetters(hooks.deadLetters(hook: request.hook, limit: limit))
        case .replay(let text):
            var ids: Set<UInt64>?
            if let text {
                let parsed = text.split(separator: ",").map { UInt64($0) }
                guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else {
                    throw .invalidParameter("id must be a comma-separated list of dead-letter ids")
                }
                ids = Set(parsed.compactMap { $0 })
            }
            return .replay(PendingReplay(hooks: hooks, hook: request.hook, ids: ids))
        }
    }
}
