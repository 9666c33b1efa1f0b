import Foundation

/// Parses `e: 2` subscribe envelopes (App Context changes).
enum AppContextEvents {
    /// The event in `{"source":"objects","type":"uuid"|"channel"|"membership","event":"set"|"delete","data":{…}}`,
    /// or nil for anything else.
    static func event(_ payload: JSONValue) -> SubscriptionEvent? {
        guard payload["source"]?.stringValue == "objects", let data = payload["data"] else { return nil }
        let isSet: Bool
        switch payload["event"]?.stringValue {
        case "set": isSet = true
        case "delete": isSet = false
        default: return nil
        }
        switch payload["type"]?.stringValue {
        case "uuid":
            guard let metadata = UUIDMetadata(json: data) else { return nil }
            return isSet ? .uuidMetadataSet(metadata) : .uuidMetadataRemoved(metadataId: metadata.id)
        case "channel":
            guard let metadata = ChannelMetadata(json: data) else { return nil }
            return isSet ? .channelMetadataSet(metadata) : .channelMetadataRemoved(metadataId: metadata.id)
        case "membership":
            guard let membership = Membership(json: data) else { return nil }
            return isSet ? .membershipMetadataSet(membership) : .membershipMetadataRemoved(membership)
        default:
            return nil
        }
    }
}
