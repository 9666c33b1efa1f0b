/// One action a user added to a stored message (a reaction, a receipt, an edit marker…): PubNub's
/// message action. Identified by its message and its own `actionTimetoken`.
public struct MessageAction: Sendable, Equatable {
    /// The keyset's subscribe key.
    public var subscribeKey: String
    /// The channel of the message.
    public var channel: String
    /// The timetoken of the message the action belongs to (not checked to exist, as on PubNub).
    public var messageTimetoken: Timetoken
    /// The action's own timetoken, issued by the node's clock when it was added.
    public var actionTimetoken: Timetoken
    /// The action's type (`reaction`, `receipt`…), at most `maxTypeLength` characters.
    public var type: String
    /// The action's value (`smiley`…), at most `maxValueBytes` bytes of UTF-8.
    public var value: String
    /// The uuid that added it: the only one that may remove it.
    public var uuid: String
    /// When it expires (Unix nanoseconds): its message's expiry under the keyset's retention; nil keeps it.
    public var expiresAtNanoseconds: UInt64?

    /// The longest `type`, in characters (PubNub's limit).
    public static let maxTypeLength = 15
    /// The largest `value`, in bytes of UTF-8.
    public static let maxValueBytes = 1_024

    /// Creates an action.
    public init(subscribeKey: String, channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
                type: String, value: String, uuid: String, expiresAtNanoseconds: UInt64? = nil) {
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.messageTimetoken = messageTimetoken
        self.actionTimetoken = actionTimetoken
        self.type = type
        self.value = value
        self.uuid = uuid
        self.expiresAtNanoseconds = expiresAtNanoseconds
    }

    /// Whether it has expired at `now` (Unix nanoseconds).
    public func isExpired(at now: UInt64) -> Bool {
        guard let expiresAtNanoseconds else { return false }
        return expiresAtNanoseconds <= now
    }

    /// The action as PubNub renders it in answers:
    /// `{"type":…,"value":…,"uuid":…,"actionTimetoken":"…","messageTimetoken":"…"}`.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"type":"#.utf8)
        JSONText.appendString(type, to: &out)
        out.append(contentsOf: #","value":"#.utf8)
        JSONText.appendString(value, to: &out)
        out.append(contentsOf: #","uuid":"#.utf8)
        JSONText.appendString(uuid, to: &out)
        out.append(contentsOf: #","actionTimetoken":""#.utf8)
        out.append(contentsOf: actionTimetoken.description.utf8)
        out.append(contentsOf: #"","messageTimetoken":""#.utf8)
        out.append(contentsOf: messageTimetoken.description.utf8)
        out.append(contentsOf: #""}"#.utf8)
    }

    /// The payload of the `e: 3` event announcing this action (`event` is `added` or `removed`):
    /// `{"source":"actions","version":"1.0","event":…,"data":{messageTimetoken,type,value,actionTimetoken,uuid}}`.
    public func eventPayload(_ event: String) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"source":"actions","version":"1.0","event":"#.utf8)
        JSONText.appendString(event, to: &out)
        out.append(contentsOf: #","data":{"messageTimetoken":""#.utf8)
        out.append(contentsOf: messageTimetoken.description.utf8)
        out.append(contentsOf: #"","type":"#.utf8)
        JSONText.appendString(type, to: &out)
        out.append(contentsOf: #","value":"#.utf8)
        JSONText.appendString(value, to: &out)
        out.append(contentsOf: #","actionTimetoken":""#.utf8)
        out.append(contentsOf: actionTimetoken.description.utf8)
        out.append(contentsOf: #"","uuid":"#.utf8)
        JSONText.appendString(uuid, to: &out)
        out.append(contentsOf: "}}".utf8)
        return out
    }
}
