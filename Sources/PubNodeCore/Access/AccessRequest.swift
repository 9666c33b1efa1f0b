/// Everything one operation touches, as presented to the node's single authorization point.
///
/// Each `Node` operation builds exactly one of these, naming the operation, the keys and every
/// resource with the permission it needs, so that a policy of Access Manager tokens (permissions
/// per exact name or pattern) can decide from this value alone.
public struct AccessRequest: Sendable, Equatable {
    /// The operation.
    public enum Operation: String, Sendable, CaseIterable {
        case publish, signal, fire
        case subscribe, heartbeat, leave, hereNow, globalHereNow, whereNow, getState, setState
        case listGroups, listGroupChannels, addGroupChannels, removeGroupChannels, deleteGroup
        case history, messageCounts, deleteHistory
        case onRequest
        /// The operator's endpoints (hook queues, dead letters, replay).
        case administer
    }

    /// A permission, as Access Manager grants them.
    public enum Permission: String, Sendable, CaseIterable {
        case read, write, manage, delete, get, update, join
    }

    /// What a resource is.
    public enum ResourceKind: String, Sendable {
        case channel, group, uuid
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

    /// Creates a request description.
    public init(_ operation: Operation, subscribeKey: String?, publishKey: String? = nil, resources: [Resource] = [],
                uuid: String? = nil, authKey: String? = nil, adminCredential: String? = nil) {
        self.operation = operation
        self.subscribeKey = subscribeKey
        self.publishKey = publishKey
        self.resources = resources
        self.uuid = uuid
        self.authKey = authKey
        self.adminCredential = adminCredential
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
