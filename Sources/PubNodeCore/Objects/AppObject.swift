/// The two kinds of App Context object.
public enum ObjectKind: String, Sendable, CaseIterable {
    /// A user's metadata (`/uuids/{uuid}`).
    case uuid
    /// A channel's metadata (`/channels/{channel}`).
    case channel

    /// The string fields this kind always renders (null when unset), in PubNub's order.
    public var baseFields: [String] {
        switch self {
        case .uuid: ["name", "externalId", "profileUrl", "email"]
        case .channel: ["name", "description"]
        }
    }

    /// Every string field a set may change, with its longest length in characters.
    public var settableFields: [(name: String, maxLength: Int)] {
        switch self {
        case .uuid: [("name", 2048), ("externalId", 2048), ("profileUrl", 2048), ("email", 320), ("status", 50), ("type", 50)]
        case .channel: [("name", 2048), ("description", 2048), ("status", 50), ("type", 50)]
        }
    }
}

/// One uuid's or channel's metadata as stored: its string fields, flat `custom`, when it was last
/// updated and the fingerprint of its content.
public struct AppObject: Sendable, Equatable {
    /// Uuid or channel.
    public var kind: ObjectKind
    /// The uuid or channel name.
    public var id: String
    /// The string fields that are set (`name`, `externalId`, `profileUrl`, `email`,
    /// `description`, `status`, `type`); an absent one is null.
    public var fields: [String: String]
    /// Custom key/value pairs (scalar values only), nil when none were set.
    public var custom: [String: ObjectJSON]?
    /// Milliseconds since the Unix epoch of the last change.
    public var updated: Int64
    /// The content's fingerprint (changes whenever a field or `custom` does).
    public var eTag: String

    /// Creates a record; `eTag` is computed from the content.
    public init(kind: ObjectKind, id: String, fields: [String: String] = [:], custom: [String: ObjectJSON]? = nil,
                updated: Int64) {
        self.kind = kind
        self.id = id
        self.fields = fields
        self.custom = custom
        self.updated = updated
        self.eTag = ""
        self.eTag = ObjectFingerprint.of(contentText)
    }

    /// The content the fingerprint covers: kind, id, fields and custom, canonically rendered.
    var contentText: [UInt8] {
        var out = Array(kind.rawValue.utf8)
        out.append(0)
        out += Array(id.utf8)
        ObjectJSON.object(fields.mapValues(ObjectJSON.string)).render(into: &out)
        (custom.map(ObjectJSON.object) ?? .null).render(into: &out)
        return out
    }

    /// Appends this object's JSON as PubNub serves it: the base fields (null when unset),
    /// `status`, `type` and `custom` when included, `updated` and `eTag`. With `event`, only the
    /// fields that are set, all of them (App Context event payloads).
    public func render(into out: inout [UInt8], include: ObjectInclude, event: Bool = false) {
        var members: [(String, ObjectJSON)] = [("id", .string(id))]
        for name in kind.baseFields {
            if let value = fields[name] { members.append((name, .string(value))) } else if !event { members.append((name, .null)) }
        }
        for (name, flag) in [("type", ObjectInclude.type), ("status", .status)] where event || include.contains(flag) {
            if let value = fields[name] { members.append((name, .string(value))) } else if !event { members.append((name, .null)) }
        }
        if event || include.contains(.custom) {
            if let custom { members.append(("custom", .object(custom))) } else if !event { members.append(("custom", .null)) }
        }
        members.append(("updated", .string(ObjectTime.iso(updated))))
        members.append(("eTag", .string(eTag)))
        ObjectJSON.renderOrdered(members, into: &out)
    }

    /// This object as it is served with every field included, for filters and tests.
    public var json: ObjectJSON {
        var out: [UInt8] = []
        render(into: &out, include: .all)
        return ObjectJSON.parse(out) ?? .null
    }
}

/// A uuid's membership of a channel, which is also the channel's member: one record seen from
/// both sides.
public struct AppMembership: Sendable, Equatable {
    /// The member.
    public var uuid: String
    /// The channel.
    public var channel: String
    /// The membership's status, if set.
    public var status: String?
    /// The membership's type, if set.
    public var type: String?
    /// Custom key/value pairs (scalar values only), nil when none were set.
    public var custom: [String: ObjectJSON]?
    /// Milliseconds since the Unix epoch of the last change.
    public var updated: Int64
    /// The content's fingerprint.
    public var eTag: String

    /// Creates a record; `eTag` is computed from the content.
    public init(uuid: String, channel: String, status: String? = nil, type: String? = nil,
                custom: [String: ObjectJSON]? = nil, updated: Int64) {
        self.uuid = uuid
        self.channel = channel
        self.status = status
        self.type = type
        self.custom = custom
        self.updated = updated
        var content = Array("membership".utf8) + [0] + Array(uuid.utf8) + [0] + Array(channel.utf8) + [0]
        ObjectJSON.array([status.map(ObjectJSON.string) ?? .null, type.map(ObjectJSON.string) ?? .null,
                          custom.map(ObjectJSON.object) ?? .null]).render(into: &content)
        self.eTag = ObjectFingerprint.of(content)
    }

    /// The event payload's `data`: both ids, what is set, `updated` and `eTag`.
    func renderEvent(into out: inout [UInt8]) {
        var members: [(String, ObjectJSON)] = [("channel", .object(["id": .string(channel)])),
                                               ("uuid", .object(["id": .string(uuid)]))]
        if let custom { members.append(("custom", .object(custom))) }
        if let status { members.append(("status", .string(status))) }
        if let type { members.append(("type", .string(type))) }
        members.append(("updated", .string(ObjectTime.iso(updated))))
        members.append(("eTag", .string(eTag)))
        ObjectJSON.renderOrdered(members, into: &out)
    }
}

extension ObjectJSON {
    /// Renders members in the order given.
    static func renderOrdered(_ members: [(String, ObjectJSON)], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            value.render(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// Content fingerprints for eTags: 64-bit FNV-1a of the canonical content, twice with different
/// seeds (128 bits), as hex.
enum ObjectFingerprint {
    static func of(_ bytes: [UInt8]) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x84222325_cbf29ce4
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second ^ UInt64(byte ^ 0x5A)) &* 0x0000_0100_0000_01B3
        }
        return Hex.encode(withUnsafeBytes(of: first.bigEndian) { Array($0) } + withUnsafeBytes(of: second.bigEndian) { Array($0) })
    }
}

/// `updated` times: ISO-8601 in UTC with milliseconds, as PubNub serves them.
public enum ObjectTime {
    /// `2024-05-01T12:00:00.123Z` for milliseconds since the epoch.
    public static func iso(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let millis = milliseconds - seconds * 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }
}
