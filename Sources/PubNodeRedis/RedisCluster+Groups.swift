import NIOCore
import PubNodeCore

extension RedisCluster {
    /// The set of a group's channels.
    func groupKey(_ subscribeKey: String, _ group: String) -> String {
        "\(log.prefix):g:\(subscribeKey.utf8.count):\(subscribeKey):\(group)"
    }

    /// The set of a subscribe key's groups that have channels.
    func groupIndexKey(_ subscribeKey: String) -> String {
        "\(log.prefix):gi:\(subscribeKey.utf8.count):\(subscribeKey)"
    }

    /// What the control channel carries when a group changed: `g<len>:<sub>:<group>`.
    func groupChangeNotice(_ subscribeKey: String, _ group: String) -> String {
        "g\(subscribeKey.utf8.count):\(subscribeKey):\(group)"
    }

    /// What the control channel carries when a uuid left: `u<len>:<sub>:<uuid>`.
    func leftNotice(_ subscribeKey: String, _ uuid: String) -> String {
        "u\(subscribeKey.utf8.count):\(subscribeKey):\(uuid)"
    }

    /// A group's channels as Redis has them.
    func members(of group: String, subscribeKey: String, on connection: RedisConnection) -> EventLoopFuture<[String]> {
        connection.sendCommand(["SMEMBERS", .text(groupKey(subscribeKey, group))]).flatMapThrowing { reply in
            guard let items = reply.array else { throw RedisError.unexpectedReply("SMEMBERS answered \(reply)") }
            return items.compactMap(\.string).sorted()
        }
    }

    /// A group changed somewhere in the cluster: if this node receives it, read it again (and
    /// receive its new channels). On the link's loop.
    func groupChanged(_ notice: String, link: RedisLink) {
        guard let (subscribeKey, group) = ClusterTopic.parse(notice, head: "g") else { return }
        let topic = ClusterTopic.group(subscribeKey: subscribeKey, name: group)
        guard let state = topics.get(topic) else { return }
        let again = state.inner.withLock { inner -> Bool in
            guard !inner.removed else { return false }
            switch inner.phase {
            case .idle: return false
            case .warming:
                // Its members are being read: the reply may predate this change, so read again after.
                inner.changedWhileWarming = true
                return false
            case .ready:
                inner.phase = .warming
                return true
            }
        }
        if again { warm(topic, state, link: link) }
    }
}

/// A subscribe key's channel groups in Redis: each change is one script (validated against the
/// limits, atomic) that also tells every node, so subscribers parked on the group anywhere follow it.
struct RedisSharedGroups: SharedChannelGroups {
    let subscribeKey: String
    let cluster: RedisCluster
    let link: RedisLink
    let limits: Limits

    func addChannels(_ channels: [String], toGroup group: String) async throws(PubNodeError) {
        do { try NameRules.validateWritable(group) } catch { throw .invalidGroup(group, error) }
        for name in channels {
            do { try NameRules.validateWritable(name) } catch { throw .invalidChannel(name, error) }
        }
        let outcome = try await change(Self.addScript, group: group, channels: channels,
                                       extra: [.integer(Int64(limits.maxChannelsPerGroup)), .integer(Int64(limits.maxGroupsPerKeyset))])
        switch outcome {
        case -1: throw .groupFull(limit: limits.maxChannelsPerGroup)
        case -2: throw .keysetGroupsFull(limit: limits.maxGroupsPerKeyset)
        default: break
        }
    }

    func removeChannels(_ channels: [String], fromGroup group: String) async throws(PubNodeError) {
        do { try NameRules.validateGroup(group) } catch { throw .invalidGroup(group, error) }
        _ = try await change(Self.removeScript, group: group, channels: channels, extra: [])
    }

    func deleteGroup(_ group: String) async throws(PubNodeError) {
        do { try NameRules.validateGroup(group) } catch { throw .invalidGroup(group, error) }
        _ = try await change(Self.deleteScript, group: group, channels: [], extra: [])
    }

    func channels(inGroup group: String) async throws(PubNodeError) -> [String] {
        do { try NameRules.validateGroup(group) } catch { throw .invalidGroup(group, error) }
        let connection = try link.connection()
        return try await Self.unavailableOnFailure {
            try await cluster.members(of: group, subscribeKey: subscribeKey, on: connection).get()
        }
    }

    func groupNames() async throws(PubNodeError) -> [String] {
        let connection = try link.connection()
        let reply = try await Self.unavailableOnFailure {
            try await connection.send(["SMEMBERS", .text(cluster.groupIndexKey(subscribeKey))])
        }
        return (reply.array ?? []).compactMap(\.string).sorted()
    }

    private func change(_ script: RedisScript, group: String, channels: [String], extra: [RESPArgument]) async throws(PubNodeError) -> Int64 {
        let connection = try link.connection()
        let arguments: [RESPArgument] = [.text(group), .text(cluster.controlChannel),
                                         .text(cluster.groupChangeNotice(subscribeKey, group))] + extra + channels.map { .text($0) }
        let reply = try await Self.unavailableOnFailure {
            try await script.run(on: connection, keys: [.text(cluster.groupKey(subscribeKey, group)),
                                                        .text(cluster.groupIndexKey(subscribeKey))], arguments: arguments).get()
        }
        return reply.int ?? 0
    }

    static func unavailableOnFailure<T>(_ body: () async throws -> T) async throws(PubNodeError) -> T {
        do { return try await body() } catch { throw .unavailable("\(error)") }
    }
}
