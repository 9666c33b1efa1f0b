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
        // Both sides change under the group's lock (group before channel, never the reverse), so a
        // concurrent add and remove cannot leave a channel naming a group that no longer lists it.
        let fits = withFanIn(groups, group) { inner -> Bool in
            guard inner.members.union(names).count <= limit else { return false }
            inner.members.formUnion(names)
            for name in names {
                withChannel(name) { _ = $0.groups.insert(group) }
            }
            return true
        }
        guard fits else { throw .groupFull(limit: limit) }
    }

    /// Removes channels from a group; unknown channels are ignored.
    public func removeChannels(_ names: [String], fromGroup group: String) throws(PubNodeError) {
        do { try NameRules.validateGroup(group) } catch { throw .invalidGroup(group, error) }
        groups.get(group)?.inner.withLock { inner in
            for name in names {
                inner.members.remove(name)
                channels.get(name)?.inner.withLock { _ = $0.groups.remove(group) }
            }
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

    /// Every group that has at least one channel, sorted.
    public func groupNames() -> [String] {
        groups.values().filter { !$0.members().isEmpty }.map(\.name).sorted()
    }
}
