/// The endpoint families HTTP metrics are labelled with: few and fixed, so a label never takes a
/// value from the request (a channel or key in a label would let clients grow the metric set).
public enum RequestFamily: Int, CaseIterable, Sendable {
    /// `/time/0`.
    case time
    /// `/publish/…` (messages and fires).
    case publish
    /// `/signal/…`.
    case signal
    /// `/v2/subscribe/…` long-polls.
    case subscribe
    /// `/v2/presence/…`.
    case presence
    /// `/v2/history/…`, `/v3/history…`.
    case history
    /// `/v1/channel-registration/…`.
    case channelGroups
    /// `/v3/pam/…`.
    case accessManager
    /// `/v1/blocks/…` (on-request hooks).
    case blocks
    /// `/v1/admin/…`.
    case admin
    /// `/console…`.
    case console
    /// `/health`, `/ready`, `/metrics`.
    case probes
    /// `/v1/message-actions/…`.
    case messageActions
    /// Anything else (unknown routes).
    case other

    /// True for publish, signal and subscribe: their endpoints read no header field, so the parser
    /// keeps no field lines for them (`RequestHead.fieldsUnread`).
    var fieldsUnread: Bool { self == .publish || self == .signal || self == .subscribe }

    /// The label value.
    public var label: String {
        switch self {
        case .time: "time"
        case .publish: "publish"
        case .signal: "signal"
        case .subscribe: "subscribe"
        case .presence: "presence"
        case .history: "history"
        case .channelGroups: "channel_groups"
        case .accessManager: "access_manager"
        case .blocks: "blocks"
        case .admin: "admin"
        case .console: "console"
        case .probes: "probes"
        case .messageActions: "message_actions"
        case .other: "other"
        }
    }

    /// The family of a request target (path and query as sent).
    public init(uri: String) {
        self = uri.utf8.withContiguousStorageIfAvailable(Self.init(target:)) ?? Self(target: Array(uri.utf8))
    }

    /// The family of the target `path` (its bytes, read in place).
    init<Bytes: Collection<UInt8>>(target path: Bytes) {
        func starts(_ prefix: StaticString) -> Bool {
            prefix.withUTF8Buffer { expected in path.starts(with: expected) }
        }
        if starts("/v2/subscribe/") { self = .subscribe }
        else if starts("/publish/") { self = .publish }
        else if starts("/signal/") { self = .signal }
        else if starts("/time/") { self = .time }
        else if starts("/v2/presence/") { self = .presence }
        else if starts("/v3/history") || starts("/v2/history/") { self = .history }
        else if starts("/v1/channel-registration/") { self = .channelGroups }
        else if starts("/v3/pam/") { self = .accessManager }
        else if starts("/v1/blocks/") { self = .blocks }
        else if starts("/v1/admin/") { self = .admin }
        else if starts("/v1/message-actions/") { self = .messageActions }
        else if starts("/console") { self = .console }
        else if starts("/health") || starts("/ready") || starts("/metrics") { self = .probes }
        else { self = .other }
    }
}
