/// What one subscribe request listens to, validated.
public struct Subscription: Sendable, Equatable {
    /// A wildcard subscription: the pattern as the client wrote it and its prefix (`a.*` → `a.`).
    public struct Wildcard: Sendable, Equatable {
        /// The pattern, e.g. `a.b.*` or `a.b.*-pnpres`; it keys the hub's wildcard index.
        public var pattern: String
        /// The prefix every matching channel starts with, e.g. `a.b.`.
        public var prefix: String
    }

    /// Concrete channels.
    public var channels: [String]
    /// Wildcard patterns.
    public var wildcards: [Wildcard]
    /// Channel groups.
    public var groups: [String]

    /// Creates an empty subscription.
    public init(channels: [String] = [], wildcards: [Wildcard] = [], groups: [String] = []) {
        self.channels = channels
        self.wildcards = wildcards
        self.groups = groups
    }

    /// True when nothing is subscribed.
    public var isEmpty: Bool { channels.isEmpty && wildcards.isEmpty && groups.isEmpty }

    /// The one channel of a subscription to exactly one concrete channel (no pattern, no group).
    public var singleChannel: String? {
        channels.count == 1 && groups.isEmpty && wildcards.isEmpty ? channels[0] : nil
    }

    /// Parses and validates channel names (wildcards allowed) and group names against `limits`.
    public init(channelNames: [String], groupNames: [String], limits: Limits) throws(PubNodeError) {
        let distinct = Self.distinct(channelNames)
        var channels: [String] = []
        var wildcards: [Wildcard] = []
        for name in distinct {
            if NameRules.isWildcard(name) {
                do {
                    wildcards.append(Wildcard(pattern: name, prefix: try NameRules.wildcardPatternPrefix(name)))
                } catch {
                    throw .invalidChannel(name, error)
                }
            } else {
                do { try NameRules.validateChannel(name) } catch { throw .invalidChannel(name, error) }
                channels.append(name)
            }
        }
        guard distinct.count <= limits.maxChannelsPerSubscribe else {
            throw .tooManyChannels(limit: limits.maxChannelsPerSubscribe)
        }
        var groups: [String] = []
        for name in Self.distinct(groupNames) {
            do { try NameRules.validateGroup(name) } catch { throw .invalidGroup(name, error) }
            groups.append(name)
        }
        guard groups.count <= limits.maxGroupsPerSubscribe else {
            throw .tooManyGroups(limit: limits.maxGroupsPerSubscribe)
        }
        self.init(channels: channels, wildcards: wildcards, groups: groups.sorted())
    }

    /// `names` without repeats, in first-seen order (channels and groups alike); a list of one
    /// (nearly every subscribe) is returned as it is, without building a set.
    private static func distinct(_ names: [String]) -> [String] {
        guard names.count > 1 else { return names }
        var seen = Set<String>(minimumCapacity: names.count)
        return names.filter { seen.insert($0).inserted }
    }
}

/// One message selected for a subscriber, with the subscription that matched it.
public struct Delivery: Sendable {
    /// The message.
    public var message: PublishedMessage
    /// The wildcard pattern or group that matched (`b`), or nil for a direct channel subscription.
    public var match: String?
}
