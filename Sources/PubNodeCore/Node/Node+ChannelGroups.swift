/// A channel-registry call (`/v1/channel-registration/sub-key/{sub}/channel-group…`).
public struct ChannelGroupRequest: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        /// List the groups that have channels, by name: those after `after` (all when nil), at most
        /// `limit` (all when nil).
        case listGroups(after: String? = nil, limit: Int? = nil)
        /// List a group's channels.
        case listChannels(group: String)
        /// Add channels to a group.
        case add(group: String, channels: [String])
        /// Remove channels from a group.
        case remove(group: String, channels: [String])
        /// Delete a group.
        case delete(group: String)
    }

    /// The subscribe key.
    public var subscribeKey: String
    /// What to do.
    public var action: Action
    /// The caller's uuid, if given.
    public var uuid: String?
    /// The caller's auth key or token.
    public var authKey: String?
    /// The request as signed, when it carries a `signature` (the transport fills it in).
    public var signature: SignedRequest?

    /// Creates a channel-registry request.
    public init(subscribeKey: String, action: Action, uuid: String? = nil, authKey: String? = nil) {
        self.subscribeKey = subscribeKey
        self.action = action
        self.uuid = uuid
        self.authKey = authKey
    }
}

/// What a channel-registry call answers.
public enum ChannelGroupResult: Sendable, Equatable {
    /// The groups that have channels (a page of them), and the name to continue after when more remain.
    case groups([String], next: String?)
    /// A group's channels.
    case channels(group: String, [String])
    /// Done.
    case done
}

/// A channel-registry call that passed authorization, on the keyset it was authorized on.
public struct AuthorizedGroupCall: Sendable {
    let keyset: ServedKeyset
    let action: ChannelGroupRequest.Action
}

extension Node {
    /// Lists, changes or deletes channel groups (wherever the keyset keeps them).
    public func channelGroups(_ request: ChannelGroupRequest) async throws(PubNodeError) -> ChannelGroupResult {
        try await channelGroups(authorizeGroups(request))
    }

    /// Validates and authorizes a channel-registry call, once.
    public func authorizeGroups(_ request: ChannelGroupRequest) throws(PubNodeError) -> AuthorizedGroupCall {
        let keyset = try servedKeyset(request.subscribeKey)
        let operation: AccessRequest.Operation
        var resources: [AccessRequest.Resource]
        switch request.action {
        case .listGroups(_, let limit):
            if let limit, limit <= 0 { throw .invalidParameter("limit must be a positive whole number") }
            (operation, resources) = (.listGroups, [])
        case .listChannels(let group):
            (operation, resources) = (.listGroupChannels, [.init(.group, group, .read)])
        case .add(let group, _):
            (operation, resources) = (.addGroupChannels, [.init(.group, group, .manage)])
        case .remove(let group, _):
            (operation, resources) = (.removeGroupChannels, [.init(.group, group, .manage)])
        case .delete(let group):
            (operation, resources) = (.deleteGroup, [.init(.group, group, .manage)])
        }
        try authorize(AccessRequest(operation, subscribeKey: request.subscribeKey, resources: resources,
                                    uuid: request.uuid, authKey: request.authKey, signature: request.signature), on: keyset)
        return AuthorizedGroupCall(keyset: keyset, action: request.action)
    }

    /// Carries out an authorized call at once, or returns nil when the keyset's groups are shared
    /// (a cluster): then `channelGroups(_:)` (async) carries it out.
    public func channelGroupsNow(_ call: AuthorizedGroupCall) throws(PubNodeError) -> ChannelGroupResult? {
        let broker = call.keyset.broker
        guard broker.sharedGroups == nil else { return nil }
        switch call.action {
        case .listGroups(let after, let limit): return Self.page(broker.groupNames(), after: after, limit: limit)
        case .listChannels(let group): return .channels(group: group, try broker.channels(inGroup: group))
        case .add(let group, let channels): try broker.addChannels(channels, toGroup: group)
        case .remove(let group, let channels): try broker.removeChannels(channels, fromGroup: group)
        case .delete(let group): try broker.deleteGroup(group)
        }
        return .done
    }

    /// Carries out an authorized call, wherever the keyset keeps its groups.
    public func channelGroups(_ call: AuthorizedGroupCall) async throws(PubNodeError) -> ChannelGroupResult {
        guard let shared = call.keyset.broker.sharedGroups else { return try channelGroupsNow(call)! }
        switch call.action {
        case .listGroups(let after, let limit): return Self.page(try await shared.groupNames(), after: after, limit: limit)
        case .listChannels(let group): return .channels(group: group, try await shared.channels(inGroup: group))
        case .add(let group, let channels): try await shared.addChannels(channels, toGroup: group)
        case .remove(let group, let channels): try await shared.removeChannels(channels, fromGroup: group)
        case .delete(let group): try await shared.deleteGroup(group)
        }
        return .done
    }

    private static func page(_ names: [String], after: String?, limit: Int?) -> ChannelGroupResult {
        var names = names
        if let after { names = Array(names.drop { $0 <= after }) }
        guard let limit, names.count > limit else { return .groups(names, next: nil) }
        return .groups(Array(names.prefix(limit)), next: names[limit - 1])
    }
}
