import Foundation

/// App Context metadata of a user (uuid).
public struct UUIDMetadata: Sendable, Equatable {
    /// The user id.
    public var id: String
    /// Display name.
    public var name: String?
    /// An identifier in another system.
    public var externalId: String?
    /// URL of a profile picture.
    public var profileURL: String?
    /// E-mail address.
    public var email: String?
    /// A type label.
    public var type: String?
    /// A status label.
    public var status: String?
    /// Custom fields (a flat JSON object).
    public var custom: JSONValue?
    /// When it was last changed (ISO 8601), set by the node.
    public var updated: String?
    /// The entity tag of this version, set by the node.
    public var eTag: String?

    /// Metadata for `id`.
    public init(id: String, name: String? = nil, externalId: String? = nil, profileURL: String? = nil,
                email: String? = nil, type: String? = nil, status: String? = nil, custom: JSONValue? = nil,
                updated: String? = nil, eTag: String? = nil) {
        self.id = id
        self.name = name
        self.externalId = externalId
        self.profileURL = profileURL
        self.email = email
        self.type = type
        self.status = status
        self.custom = custom
        self.updated = updated
        self.eTag = eTag
    }

    /// From the wire object `{id, name, externalId, profileUrl, email, type, status, custom, updated, eTag}`.
    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue else { return nil }
        self.init(id: id, name: json["name"]?.stringValue, externalId: json["externalId"]?.stringValue,
                  profileURL: json["profileUrl"]?.stringValue, email: json["email"]?.stringValue,
                  type: json["type"]?.stringValue, status: json["status"]?.stringValue,
                  custom: json["custom"]?.nonNull,
                  updated: json["updated"]?.stringValue, eTag: json["eTag"]?.stringValue)
    }

    /// The body of a set request: the fields given (the node keeps no field left out).
    var body: JSONValue {
        var fields: [String: JSONValue] = [:]
        fields["name"] = name.map(JSONValue.string)
        fields["externalId"] = externalId.map(JSONValue.string)
        fields["profileUrl"] = profileURL.map(JSONValue.string)
        fields["email"] = email.map(JSONValue.string)
        fields["type"] = type.map(JSONValue.string)
        fields["status"] = status.map(JSONValue.string)
        fields["custom"] = custom
        return .object(fields)
    }

    /// The metadata as the wire's object: the set body's fields with `id`, `updated` and `eTag`.
    public var wireJSON: JSONValue { body.withIdentity(id: id, updated: updated, eTag: eTag) }
}

/// App Context metadata of a channel.
public struct ChannelMetadata: Sendable, Equatable {
    /// The channel name.
    public var id: String
    /// Display name.
    public var name: String?
    /// Description.
    public var channelDescription: String?
    /// A type label.
    public var type: String?
    /// A status label.
    public var status: String?
    /// Custom fields (a flat JSON object).
    public var custom: JSONValue?
    /// When it was last changed (ISO 8601), set by the node.
    public var updated: String?
    /// The entity tag of this version, set by the node.
    public var eTag: String?

    /// Metadata for `id`.
    public init(id: String, name: String? = nil, channelDescription: String? = nil, type: String? = nil,
                status: String? = nil, custom: JSONValue? = nil, updated: String? = nil, eTag: String? = nil) {
        self.id = id
        self.name = name
        self.channelDescription = channelDescription
        self.type = type
        self.status = status
        self.custom = custom
        self.updated = updated
        self.eTag = eTag
    }

    /// From the wire object `{id, name, description, type, status, custom, updated, eTag}`.
    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue else { return nil }
        self.init(id: id, name: json["name"]?.stringValue, channelDescription: json["description"]?.stringValue,
                  type: json["type"]?.stringValue, status: json["status"]?.stringValue,
                  custom: json["custom"]?.nonNull,
                  updated: json["updated"]?.stringValue, eTag: json["eTag"]?.stringValue)
    }

    /// The body of a set request.
    var body: JSONValue {
        var fields: [String: JSONValue] = [:]
        fields["name"] = name.map(JSONValue.string)
        fields["description"] = channelDescription.map(JSONValue.string)
        fields["type"] = type.map(JSONValue.string)
        fields["status"] = status.map(JSONValue.string)
        fields["custom"] = custom
        return .object(fields)
    }

    /// The metadata as the wire's object: the set body's fields with `id`, `updated` and `eTag`.
    public var wireJSON: JSONValue { body.withIdentity(id: id, updated: updated, eTag: eTag) }
}

extension JSONValue {
    /// This object with an App Context object's `id`, `updated` and `eTag` added.
    fileprivate func withIdentity(id: String, updated: String?, eTag: String?) -> JSONValue {
        var fields = objectValue ?? [:]
        fields["id"] = .string(id)
        fields["updated"] = updated.map(JSONValue.string)
        fields["eTag"] = eTag.map(JSONValue.string)
        return .object(fields)
    }
}

/// A membership: a user in a channel, with the membership's own fields.
public struct Membership: Sendable, Equatable {
    /// The user id.
    public var uuid: String
    /// The channel.
    public var channel: String
    /// The user's metadata, when included.
    public var uuidMetadata: UUIDMetadata?
    /// The channel's metadata, when included.
    public var channelMetadata: ChannelMetadata?
    /// The membership's custom fields.
    public var custom: JSONValue?
    /// The membership's status label.
    public var status: String?
    /// The membership's type label.
    public var type: String?
    /// When it was last changed, set by the node.
    public var updated: String?
    /// The entity tag of this version, set by the node.
    public var eTag: String?

    /// A membership of `uuid` in `channel`.
    public init(uuid: String, channel: String, uuidMetadata: UUIDMetadata? = nil, channelMetadata: ChannelMetadata? = nil,
                custom: JSONValue? = nil, status: String? = nil, type: String? = nil,
                updated: String? = nil, eTag: String? = nil) {
        self.uuid = uuid
        self.channel = channel
        self.uuidMetadata = uuidMetadata
        self.channelMetadata = channelMetadata
        self.custom = custom
        self.status = status
        self.type = type
        self.updated = updated
        self.eTag = eTag
    }

    /// From a wire item; the side the item leaves out (`channel` in a members list, `uuid` in a
    /// memberships list) is `uuid` or `channel`.
    init?(json: JSONValue, uuid: String? = nil, channel: String? = nil) {
        let user = json["uuid"].flatMap { UUIDMetadata(json: $0) }
        let room = json["channel"].flatMap { ChannelMetadata(json: $0) }
        guard let uuidId = user?.id ?? uuid, let channelId = room?.id ?? channel else { return nil }
        self.init(uuid: uuidId, channel: channelId,
                  uuidMetadata: user.flatMap { $0.isBare ? nil : $0 }, channelMetadata: room.flatMap { $0.isBare ? nil : $0 },
                  custom: json["custom"]?.nonNull, status: json["status"]?.stringValue,
                  type: json["type"]?.stringValue, updated: json["updated"]?.stringValue, eTag: json["eTag"]?.stringValue)
    }
}

extension JSONValue {
    /// The value, or nil for JSON `null`.
    var nonNull: JSONValue? {
        if case .null = self { return Optional<JSONValue>.none }
        return self
    }
}

extension UUIDMetadata {
    /// Whether only the id is known.
    var isBare: Bool { self == UUIDMetadata(id: id) }
}

extension ChannelMetadata {
    /// Whether only the id is known.
    var isBare: Bool { self == ChannelMetadata(id: id) }
}
