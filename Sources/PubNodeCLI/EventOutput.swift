import Foundation
import PubNodeClient

/// How `subscribe` prints message action and App Context events.
enum EventOutput {
    /// One line for `event` (a JSON object with `json`), or nil for events printed elsewhere.
    static func line(_ event: SubscriptionEvent, json: Bool) -> String? {
        guard let (type, fields) = describe(event) else { return nil }
        if json {
            return JSONValue.object(fields.merging(["type": .string(type)]) { current, _ in current }).jsonString
        }
        let parts = fields.keys.sorted().map { key -> String in
            let value = fields[key] ?? .null
            return "\(key)=\(value.stringValue ?? value.jsonString)"
        }
        return ([type] + parts).joined(separator: " ")
    }

    /// The event's type name and fields.
    static func describe(_ event: SubscriptionEvent) -> (String, [String: JSONValue])? {
        switch event {
        case .messageActionAdded(let action): return ("action-added", fields(action))
        case .messageActionRemoved(let action): return ("action-removed", fields(action))
        case .uuidMetadataSet(let metadata): return ("uuid-set", ObjectsOutput.json(metadata).objectValue ?? [:])
        case .uuidMetadataRemoved(let id): return ("uuid-removed", ["id": .string(id)])
        case .channelMetadataSet(let metadata): return ("channel-set", ObjectsOutput.json(metadata).objectValue ?? [:])
        case .channelMetadataRemoved(let id): return ("channel-removed", ["id": .string(id)])
        case .membershipMetadataSet(let membership):
            return ("membership-set", ObjectsOutput.json(membership).objectValue ?? [:])
        case .membershipMetadataRemoved(let membership):
            return ("membership-removed", ObjectsOutput.json(membership).objectValue ?? [:])
        default: return nil
        }
    }

    /// A message action as JSON fields (timetokens as strings).
    static func fields(_ action: MessageAction) -> [String: JSONValue] {
        ["channel": .string(action.channel), "actionType": .string(action.type), "value": .string(action.value),
         "uuid": .string(action.uuid), "actionTimetoken": .string(String(action.actionTimetoken)),
         "messageTimetoken": .string(String(action.messageTimetoken))]
    }
}

/// JSON forms of App Context values, in the wire's field names.
enum ObjectsOutput {
    /// A user's metadata.
    static func json(_ metadata: UUIDMetadata) -> JSONValue { metadata.wireJSON }

    /// A channel's metadata.
    static func json(_ metadata: ChannelMetadata) -> JSONValue { metadata.wireJSON }

    /// A membership.
    static func json(_ membership: Membership) -> JSONValue {
        var fields: [String: JSONValue] = ["uuid": .string(membership.uuid), "channel": .string(membership.channel)]
        fields["uuidMetadata"] = membership.uuidMetadata.map(json)
        fields["channelMetadata"] = membership.channelMetadata.map(json)
        fields["custom"] = membership.custom
        fields["status"] = membership.status.map(JSONValue.string)
        fields["type"] = membership.type.map(JSONValue.string)
        fields["updated"] = membership.updated.map(JSONValue.string)
        fields["eTag"] = membership.eTag.map(JSONValue.string)
        return .object(fields)
    }
}
