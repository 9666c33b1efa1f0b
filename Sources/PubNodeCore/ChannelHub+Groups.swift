import Synchronization

extension ChannelHub {
    /// Adds channels to a group (creating it), keeping the group within `maxChannelsPerGroup`.
    ///
    /// The change applies at once to subscribers already parked on the group.
    public func addChannels(_ names: [String], toGroup group: String) throws(PubNodeError) {
        do { try NameRules.validateWritable(group) } catch { throw .invalidGroup(group, error) }
        for name in names {
            do { try NameRules.validateWritable(name) } catch { throw .invalidChannel(name, error) }
        }
        let limit = limits.maxChannelsPerGroup
        enum Outcome { case added, groupFull, keysetFull }
        // Both sides change under the group's lock (group before channel, never the reverse), so a
        // concurrent add and remove cannot leave a channel naming a group that no longer lists it.
        let outcome = withFanIn(groups, group) { inner -> Outcome in
            guard inner.members.union(names).count <= limit else { return .groupFull }
            if inner.members.isEmpty, !names.isEmpty, !reserveGroup() { return .keysetFull }
            inner.members.formUnion(names)
            for name in names {
                withChannel(name) { _ = $0.groups.insert(group) }
            }
            return .added
        }
        switch outcome {
        case .added: break
        case .groupFull: throw .groupFull(limit: limit)
        case .keysetFull: throw .keysetGroupsFull(limit: limits.maxGroupsPerKeyset)
        }
    }

    /// Counts one more group with channels, unless the keyset has its maximum.
    private func reserveGroup() -> Bool {
        var current = groupCount.load(ordering: .relaxed)
        while current < limits.maxGroupsPerKeyset {
            let (exchanged, original) = groupCount.compareExchange(expected: current, desired: current + 1,
                                                                   ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Removes channels from a group; unknown channels are ignored.
    public func removeChannels(_ names: [String], fromGroup group: String) throws(PubNodeError) {
        do { try NameRules.validateGroup(group) } catch { throw .invalidGroup(group, error) }
        groups.get(group)?.inner.withLock { inner in
            let wasEmpty = inner.members.isEmpty
            for name in names {
                inner.members.remove(name)
                channels.get(name)?.inner.withLock { _ = $0.groups.remove(group) }
            }
            if !wasEmpty, inner.members.isEmpty { groupCount.subtract(1, ordering: .relaxed) }
        }
    }

    /// Deletes a group: every channel leaves it.
    public func deleteGroup(_ group: String) throws(PubNodeError) {
        do { try NameRules.validateGroup(group) } catch { throw .invalidGroup(group, error) }
        let members = groups.get(group)?.members() ?? []
        try removeChannels(Array(members), fromGroup: group)
    }

    /// The channels of a group, sorted; an unknown group has none.
    public func channels(inGroup group: String) throws(PubNodeError) -> [String] {
        do { try NameRules.validateGroup(group) } catch { throw .invalidGroup(group, error) }
        return (groups.get(group)?.members() ?? []).sorted()
    }

    /// Every group that has at least one channel, sorted (at most `Limits.maxGroupsPerKeyset`).
    public func groupNames() -> [String] {
        groups.values().filter { !$0.members().isEmpty }.map(\.name).sorted()
    }

    /// Groups with at least one channel.
    public var groupsWithChannels: Int { groupCount.load(ordering: .relaxed) }
}
