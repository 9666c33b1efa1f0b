/// An App Context request as decoded from the wire: which object (or list), the query, the body
/// of a set, `If-Match`, and the caller's credentials.
public struct ObjectRequest: Sendable {
    /// The subscribe key.
    public var subscribeKey: String
    /// Uuid or channel; for memberships the uuid side, for members the channel side.
    public var kind: ObjectKind
    /// The uuid or channel named in the path; nil for a list of every object.
    public var id: String?
    /// Include, paging, sort, count and filter.
    public var query: ObjectQuery
    /// The body of a set (PATCH), as received.
    public var body: [UInt8]?
    /// The `If-Match` header of a set: the eTag the object must still have.
    public var ifMatch: String?
    /// The caller's uuid, if given.
    public var uuid: String?
    /// The caller's auth key or token.
    public var authKey: String?
    /// The request as signed, when it carries a `signature` (the transport fills it in).
    public var signature: SignedRequest?

    /// Creates a request.
    public init(subscribeKey: String, kind: ObjectKind, id: String?, query: ObjectQuery = ObjectQuery(),
                body: [UInt8]? = nil, ifMatch: String? = nil, uuid: String? = nil, authKey: String? = nil) {
        self.subscribeKey = subscribeKey
        self.kind = kind
        self.id = id
        self.query = query
        self.body = body
        self.ifMatch = ifMatch
        self.uuid = uuid
        self.authKey = authKey
    }
}

/// A membership (or member) as listed: the record and the other side's object when it exists
/// and was asked for.
public struct MembershipView: Sendable, Equatable {
    /// The record.
    public var membership: AppMembership
    /// The other side's metadata (the channel's for memberships, the uuid's for members).
    public var target: AppObject?
}

extension AccessRequest.Operation {
    /// Whether the operation lists every object of a keyset (which needs the secret).
    public var listsAllObjects: Bool { self == .getAllUUIDMetadata || self == .getAllChannelMetadata }
}

/// Reading and checking App Context bodies: field types and lengths, flat `custom`, ids.
enum ObjectInput {
    /// The longest uuid or channel id, in UTF-8 bytes.
    static let maxIDBytes = 92
    /// Most memberships set or deleted in one request.
    static let maxChangesPerRequest = 100

    /// Throws unless `id` is 1 to 92 UTF-8 bytes of a valid, non-wildcard channel name.
    static func validateID(_ id: String, _ what: String) throws(PubNodeError) {
        guard !id.isEmpty, id.utf8.count <= maxIDBytes else {
            throw .invalidParameter("\(what) must be 1 to \(maxIDBytes) bytes")
        }
        do { try NameRules.validateWritable(id) } catch {
            throw .invalidParameter("\(what) '\(id)' contains a forbidden character (, : * / \\ or a control character) or -pnpres")
        }
    }

    /// The body as a JSON object, or a refusal.
    static func object(_ body: [UInt8]?) throws(PubNodeError) -> [String: ObjectJSON] {
        guard let body, !body.isEmpty else { throw .invalidParameter("the request body must be a JSON object") }
        guard case .object(let members)? = ObjectJSON.parse(body) else {
            throw .invalidParameter("the request body must be a JSON object")
        }
        return members
    }

    /// A string field: absent (`.some(nil)` never), null (clear), or a string within `maxLength`.
    static func string(_ value: ObjectJSON, _ name: String, maxLength: Int) throws(PubNodeError) -> String? {
        switch value {
        case .null: return nil
        case .string(let text):
            guard text.count <= maxLength else { throw .invalidParameter("\(name) is longer than \(maxLength) characters") }
            if name == "name", text.allSatisfy(\.isWhitespace) {
                throw .invalidParameter("name must not be empty or only white space")
            }
            return text
        default: throw .invalidParameter("\(name) must be a string or null")
        }
    }

    /// `custom`: null, or an object of at most `maxBytes` whose values are strings, numbers or booleans.
    static func custom(_ value: ObjectJSON?, maxBytes: Int) throws(PubNodeError) -> [String: ObjectJSON]? {
        guard let value else { return nil }
        switch value {
        case .null: return nil
        case .object(let members):
            for (name, member) in members {
                switch member {
                case .string, .number, .bool: continue
                default: throw .invalidParameter("custom.\(name.prefix(40)) must be a string, number or boolean (custom is flat)")
                }
            }
            guard value.text.utf8.count <= maxBytes else { throw .invalidParameter("custom is larger than \(maxBytes) bytes") }
            return members
        default: throw .invalidParameter("custom must be an object or null")
        }
    }
}
