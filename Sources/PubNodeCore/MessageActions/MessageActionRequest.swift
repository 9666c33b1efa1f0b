/// A message action request (`/v1/message-actions/…`), as decoded from the wire.
public struct MessageActionRequest: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Add an action of `type` and `value` to the message at `messageTimetoken`.
        case add(messageTimetoken: Timetoken, type: String, value: String)
        /// Remove the action `actionTimetoken` of the message at `messageTimetoken`.
        case remove(messageTimetoken: Timetoken, actionTimetoken: Timetoken)
    }

    /// The subscribe key.
    public var subscribeKey: String
    /// The channel of the message.
    public var channel: String
    /// Add or remove.
    public var action: Action
    /// The caller's uuid: the action's author (required).
    public var uuid: String?
    /// The caller's auth key or token.
    public var authKey: String?
    /// The request as signed, when it carries a `signature` (the transport fills it in).
    public var signature: SignedRequest?

    /// Creates a request.
    public init(subscribeKey: String, channel: String, action: Action, uuid: String?, authKey: String? = nil) {
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.action = action
        self.uuid = uuid
        self.authKey = authKey
    }
}

/// A read of a channel's message actions (`GET /v1/message-actions/{sub}/channel/{ch}`).
public struct MessageActionQuery: Sendable {
    /// The subscribe key.
    public var subscribeKey: String
    /// The channel.
    public var channel: String
    /// `start` (exclusive) and `end` (inclusive) on action timetokens, as history's.
    public var range: HistoryRange
    /// The most actions returned (1…`Node.maxActionsPerPage`).
    public var limit: Int
    /// The caller's uuid, if given.
    public var uuid: String?
    /// The caller's auth key or token.
    public var authKey: String?
    /// The request as signed, when it carries a `signature`.
    public var signature: SignedRequest?

    /// Creates a query.
    public init(subscribeKey: String, channel: String, range: HistoryRange = .all, limit: Int = 100,
                uuid: String? = nil, authKey: String? = nil) {
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.range = range
        self.limit = limit
        self.uuid = uuid
        self.authKey = authKey
    }
}

/// One page of a channel's message actions.
public struct MessageActionPage: Sendable, Equatable {
    /// The actions, oldest first.
    public var actions: [MessageAction]
    /// Whether older actions remain in the range (read them with `start` = the first action's timetoken).
    public var more: Bool
}
