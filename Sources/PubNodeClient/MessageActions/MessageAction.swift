import Foundation

/// A message action: a reaction, receipt or other annotation one user added to a stored message.
public struct MessageAction: Sendable, Equatable {
    /// The channel of the message.
    public var channel: String
    /// The action's type, e.g. `"reaction"`.
    public var type: String
    /// The action's value, e.g. `"smiley_face"`.
    public var value: String
    /// The user id that added it.
    public var uuid: String
    /// When it was added.
    public var actionTimetoken: UInt64
    /// The timetoken of the message it annotates.
    public var messageTimetoken: UInt64

    /// An action.
    public init(channel: String, type: String, value: String, uuid: String, actionTimetoken: UInt64, messageTimetoken: UInt64) {
        self.channel = channel
        self.type = type
        self.value = value
        self.uuid = uuid
        self.actionTimetoken = actionTimetoken
        self.messageTimetoken = messageTimetoken
    }

    /// The action in a wire object `{type, value, uuid, actionTimetoken, messageTimetoken}`;
    /// `uuid` falls back to `actor`. Nil when a field is missing, as the SDKs refuse it too.
    init?(_ json: JSONValue, channel: String, actor: String? = nil) {
        guard let type = json["type"]?.stringValue, let value = json["value"]?.stringValue,
              let uuid = json["uuid"]?.stringValue ?? actor,
              let action = json["actionTimetoken"]?.intValue, action >= 0,
              let message = json["messageTimetoken"]?.intValue, message >= 0 else { return nil }
        self.init(channel: channel, type: type, value: value, uuid: uuid,
                  actionTimetoken: UInt64(action), messageTimetoken: UInt64(message))
    }
}

/// One action of a message in `fetchMessages(includeActions: true)`: who added it and when.
public struct MessageActionRecord: Sendable, Equatable {
    /// The user id that added it.
    public var uuid: String
    /// When it was added.
    public var actionTimetoken: UInt64

    /// A record.
    public init(uuid: String, actionTimetoken: UInt64) {
        self.uuid = uuid
        self.actionTimetoken = actionTimetoken
    }
}

/// A page of `fetchMessageActions`: the actions, oldest first, and the bounds of the next page.
public struct MessageActionsPage: Sendable, Equatable {
    /// The actions of this page, oldest first.
    public var actions: [MessageAction]
    /// The bounds to fetch the next (older) page with, when the node says there are more.
    public var next: MessageActionsBounds?

    /// A page.
    public init(actions: [MessageAction], next: MessageActionsBounds?) {
        self.actions = actions
        self.next = next
    }
}

/// Which actions `fetchMessageActions` returns: older than `start` (exclusive), no older than
/// `end` (inclusive), at most `limit`.
public struct MessageActionsBounds: Sendable, Equatable {
    /// Only actions older than this timetoken.
    public var start: UInt64?
    /// Only actions at or newer than this timetoken.
    public var end: UInt64?
    /// At most this many actions (the node's default when nil).
    public var limit: Int?

    /// Bounds.
    public init(start: UInt64? = nil, end: UInt64? = nil, limit: Int? = nil) {
        self.start = start
        self.end = end
        self.limit = limit
    }
}

/// Parses `e: 3` subscribe envelopes.
enum MessageActionEvents {
    /// The event in the payload `{"source":"actions","event":"added"|"removed","data":{…}}`, or nil.
    static func event(_ payload: JSONValue, channel: String, actor: String?) -> SubscriptionEvent? {
        guard let data = payload["data"], let action = MessageAction(data, channel: channel, actor: actor) else { return nil }
        switch payload["event"]?.stringValue {
        case "added": return .messageActionAdded(action)
        case "removed": return .messageActionRemoved(action)
        default: return nil
        }
    }
}
