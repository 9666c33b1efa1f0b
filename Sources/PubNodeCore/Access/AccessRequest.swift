/// Everything one operation touches, as presented to the node's single authorization point.
///
/// Each `Node` operation builds exactly one of these, naming the operation, the keys and every
/// resource with the permission it needs, so that a policy of Access Manager tokens (permissions
/// per exact name or pattern) can decide from this value alone.
public struct AccessRequest: Sendable, Equatable {
    /// The operation.
    public enum Operation: String, Sendable, CaseIterable {
        /// Publish a message (`write` on the channel).
        case publish
        /// Send a signal (`write` on the channel).
        case signal
        /// Fire a message to the hooks only (`write` on the channel).
        case fire
        /// Subscribe (`read` on each channel and group).
        case subscribe
        /// Announce presence (`read` on each channel and group).
        case heartbeat
        /// Leave (names `read` on each channel and group; Access Manager asks only for a valid token).
        case leave
        /// Occupancy of channels and groups (`read` on each).
        case hereNow
        /// Occupancy of every channel of the keyset.
        case globalHereNow
        /// The channels a uuid is on (names `get` on the uuid; Access Manager asks only for a valid token).
        case whereNow
        /// A uuid's state (`read` on each channel and group; `get` on another uuid).
        case getState
        /// Set a uuid's state (`read` on each channel and group; `update` on another uuid).
        case setState
        /// List the keyset's groups.
        case listGroups
        /// List a group's channels (`read` on the group).
        case listGroupChannels
        /// Add channels to a group (`manage` on the group, as on PubNub).
        case addGroupChannels
        /// Remove channels from a group (`manage` on the group).
        case removeGroupChannels
        /// Delete a group (`manage` on the group).
        case deleteGroup
        /// Read history (`read` on each channel).
        case history
        /// Count stored messages (`read` on each channel).
        case messageCounts
        /// Delete stored messages (`delete` on the channel).
        case deleteHistory
        /// Add a message action (`write` on the channel, as on PubNub).
        case addMessageAction
        /// Remove a message action (`delete` on the channel).
        case removeMessageAction
        /// Read a channel's message actions (`read` on the channel).
        case getMessageActions
        /// Call an on-request hook.
        case onRequest
        /// Issue an Access Manager token (a signature is required).
        case grantToken
        /// Revoke an Access Manager token (a signature is required).
        case revokeToken
        /// The operator's endpoints (hook queues, dead letters, replay, keysets).
        case administer
        /// Read a uuid's metadata (`get` on the uuid).
        case getUUIDMetadata
        /// Set a uuid's metadata (`update` on the uuid).
        case setUUIDMetadata
        /// Remove a uuid's metadata (`delete` on the uuid).
        case removeUUIDMetadata
        /// List every uuid's metadata (a keyset-wide view: the secret).
        case getAllUUIDMetadata
        /// Read a channel's metadata (`get` on the channel).
        case getChannelMetadata
        /// Set a channel's metadata (`update` on the channel).
        case setChannelMetadata
        /// Remove a channel's metadata (`delete` on the channel).
        case removeChannelMetadata
        /// List every channel's metadata (a keyset-wide view: the secret).
        case getAllChannelMetadata
        /// List a uuid's memberships (`get` on the uuid).
        case getMemberships
        /// Set or remove a uuid's memberships (`update` on the uuid, `join` on each channel).
        case setMemberships
        /// List a channel's members (`get` on the channel).
        case getMembers
        /// Set or remove a channel's members (`manage` on the channel).
        case setMembers
    }

    /// A permission, as Access Manager grants them.
    public enum Permission: String, Sendable, CaseIterable {
        /// Subscribe, read history and presence.
        case read
        /// Publish and signal.
        case write
        /// Change channel groups.
        case manage
        /// Delete history.
        case delete
        /// Read a uuid's data.
        case get
        /// Change a uuid's data.
        case update
        /// Join a channel (memberships).
        case join
    }

    /// What a resource is.
    public enum ResourceKind: String, Sendable {
        /// A channel (a name, a wildcard pattern or a `-pnpres` channel).
        case channel
        /// A channel group.
        case group
        /// A uuid (a user).
        case uuid
    }

    /// One resource and the permission the operation needs on it.
    public struct Resource: Sendable, Equatable {
        /// Channel, group or uuid.
        public var kind: ResourceKind
        /// Its name as the request gave it (a channel may be a wildcard pattern or `-pnpres`).
        public var name: String
        /// The permission needed.
        public var permission: Permission

        /// Creates a resource requirement.
        public init(_ kind: ResourceKind, _ name: String, _ permission: Permission) {
            self.kind = kind
            self.name = name
            self.permission = permission
        }
    }

    /// The operation.
    public var operation: Operation
    /// The subscribe key named by the request (nil for the operator's node-wide endpoints).
    public var subscribeKey: String?
    /// The publish key named by the request, if any.
    public var publishKey: String?
    /// Every resource touched, each with the permission needed.
    public var resources: [Resource]
    /// The caller's uuid, if given.
    public var uuid: String?
    /// The caller's auth key or token (`auth=`), if given.
    public var authKey: String?
    /// The operator's credential (`Authorization: Bearer …`), for `administer`.
    public var adminCredential: String?
    /// The request as signed, when it carries a signature.
    public var signature: SignedRequest?

    /// Creates a request description.
    public init(_ operation: Operation, subscribeKey: String?, publishKey: String? = nil, resources: [Resource] = [],
                uuid: String? = nil, authKey: String? = nil, adminCredential: String? = nil,
                signature: SignedRequest? = nil) {
        self.operation = operation
        self.subscribeKey = subscribeKey
        self.publishKey = publishKey
        self.resources = resources
        self.uuid = uuid
        self.authKey = authKey
        self.adminCredential = adminCredential
        self.signature = signature
    }

    /// The channels touched.
    public var channels: [String] { resources.filter { $0.kind == .channel }.map(\.name) }
    /// The groups touched.
    public var groups: [String] { resources.filter { $0.kind == .group }.map(\.name) }
}

extension Array where Element == AccessRequest.Resource {
    /// `permission` on each channel.
    public static func channels(_ names: [String], _ permission: AccessRequest.Permission) -> Self {
        names.map { AccessRequest.Resource(.channel, $0, permission) }
    }

    /// `permission` on each group.
    public static func groups(_ names: [String], _ permission: AccessRequest.Permission) -> Self {
        names.map { AccessRequest.Resource(.group, $0, permission) }
    }
}

extension AccessRequest.Operation {
    /// Whether the operation puts a message on a channel (publish, signal, fire): what a keyset's
    /// publish rate limits.
    public var publishes: Bool { self == .publish || self == .signal || self == .fire }

    /// Whether the operation grants or revokes Access Manager tokens: checked by Access Manager
    /// (a signature with the secret key) even on a keyset that does not enforce it.
    var managesTokens: Bool { self == .grantToken || self == .revokeToken }
}
