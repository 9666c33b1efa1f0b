/// One event handed to a hook: a message, fire or signal (before or after it is accepted), or a
/// presence change. Message and meta are kept as the publisher's JSON text, byte-exact.
///
/// Its wire form (the webhook body, also what the outbox stores) is one JSON object:
/// `{"event":"after-publish","action":"publish","subscribeKey":"demo","channel":"chat",
/// "message":{…},"meta":{…},"publisher":"u1","timetoken":"17…","customMessageType":"text"}`;
/// presence events carry `"uuid"`, `"occupancy"`, `"timestamp"` and `"state"` instead of the
/// message fields. Absent values are omitted, except `message` on message events.
public struct HookEvent: Sendable, Equatable {
    /// The trigger the event was raised for.
    public var trigger: HookTrigger
    /// What happened.
    public var action: HookAction
    /// The keyset.
    public var subscribeKey: String
    /// The channel (without `-pnpres` for presence events).
    public var channel: String
    /// The message's JSON text (message, fire and signal events).
    public var message: [UInt8]?
    /// The publisher's metadata JSON text, if any.
    public var meta: [UInt8]?
    /// The publisher's uuid (message events) or the uuid whose presence changed.
    public var uuid: String?
    /// The timetoken issued (after events of messages; before events have none yet).
    public var timetoken: Timetoken?
    /// The user-defined message type, if any.
    public var customMessageType: String?
    /// The channel's occupancy after a presence change.
    public var occupancy: Int?
    /// Unix seconds of a presence change.
    public var timestamp: Int?
    /// The uuid's presence state JSON text, if any.
    public var state: [UInt8]?

    /// Creates an event.
    public init(trigger: HookTrigger, action: HookAction, subscribeKey: String, channel: String,
                message: [UInt8]? = nil, meta: [UInt8]? = nil, uuid: String? = nil, timetoken: Timetoken? = nil,
                customMessageType: String? = nil, occupancy: Int? = nil, timestamp: Int? = nil, state: [UInt8]? = nil) {
        self.trigger = trigger
        self.action = action
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.message = message
        self.meta = meta
        self.uuid = uuid
        self.timetoken = timetoken
        self.customMessageType = customMessageType
        self.occupancy = occupancy
        self.timestamp = timestamp
        self.state = state
    }

    /// The after event of an accepted message, fire or signal.
    public init(after message: PublishedMessage, action: HookAction, subscribeKey: String) {
        self.init(trigger: .after(message.kind), action: action, subscribeKey: subscribeKey, channel: message.channel,
                  message: Array(message.payload), meta: message.meta.map { Array($0) }, uuid: message.publisher,
                  timetoken: message.timetoken, customMessageType: message.customMessageType)
    }

    /// The after event of a per-uuid presence change; nil for interval summaries.
    public init?(presence event: PresenceEvent, subscribeKey: String) {
        let action: HookAction
        switch event.action {
        case .join: action = .join
        case .leave: action = .leave
        case .timeout: action = .timeout
        case .stateChange: action = .stateChange
        case .interval: return nil
        }
        self.init(trigger: .afterPresence, action: action, subscribeKey: subscribeKey, channel: event.channel,
                  uuid: event.uuid, occupancy: event.occupancy, timestamp: event.timestamp, state: event.state)
    }

    /// True for presence events.
    public var isPresence: Bool { trigger == .afterPresence }

    /// The event's JSON text.
    public func body() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160 + (message?.count ?? 0) + (meta?.count ?? 0) + (state?.count ?? 0))
        out.append(contentsOf: #"{"event":"#.utf8)
        JSONText.appendString(trigger.rawValue, to: &out)
        Self.field("action", string: action.rawValue, &out)
        Self.field("subscribeKey", string: subscribeKey, &out)
        Self.field("channel", string: channel, &out)
        if isPresence {
            Self.field("uuid", string: uuid, &out)
            Self.field("occupancy", raw: occupancy.map { Array(String($0).utf8) }, &out)
            Self.field("timestamp", raw: timestamp.map { Array(String($0).utf8) }, &out)
            Self.field("state", raw: state, &out)
        } else {
            Self.field("message", raw: message ?? Array("null".utf8), &out)
            Self.field("meta", raw: meta, &out)
            Self.field("publisher", string: uuid, &out)
            Self.field("timetoken", string: timetoken?.description, &out)
            Self.field("customMessageType", string: customMessageType, &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Appends `,"name":"value"` when there is a value.
    private static func field(_ name: StaticString, string value: String?, _ out: inout [UInt8]) {
        guard let value else { return }
        key(name, &out)
        JSONText.appendString(value, to: &out)
    }

    /// Appends `,"name":<JSON text>` when there is a value.
    private static func field(_ name: StaticString, raw value: [UInt8]?, _ out: inout [UInt8]) {
        guard let value else { return }
        key(name, &out)
        out.append(contentsOf: value)
    }

    private static func key(_ name: StaticString, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: #"":"#.utf8)
    }
}
