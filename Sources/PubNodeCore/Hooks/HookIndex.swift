/// Which hooks a channel's events go to, precomputed per keyset and trigger.
///
/// A lookup is a few hash probes (the exact name, the channel's at most two wildcard prefixes,
/// the keyset-wide list), never a scan of the bindings; a keyset and trigger with no hooks costs
/// one dictionary miss.
struct HookIndex: Sendable {
    private struct Key: Hashable {
        var subscribeKey: String
        var trigger: HookTrigger
    }

    private struct Entry {
        var exact: [String: [Int]] = [:]
        var prefixes: [String: [Int]] = [:]
        var all: [Int] = []
    }

    private var entries: [Key: Entry] = [:]

    /// Indexes `bindings` by position.
    init(_ bindings: [HookBinding]) {
        for (ordinal, binding) in bindings.enumerated() {
            var entry = entries[Key(subscribeKey: binding.subscribeKey, trigger: binding.trigger)] ?? Entry()
            for channel in Set(binding.channels) {
                if channel == "*" {
                    entry.all.append(ordinal)
                } else if binding.trigger != .onRequest, NameRules.isWildcard(channel),
                          let prefix = try? NameRules.wildcardPrefix(channel) {
                    entry.prefixes[prefix, default: []].append(ordinal)
                } else {
                    entry.exact[channel, default: []].append(ordinal)
                }
            }
            entries[Key(subscribeKey: binding.subscribeKey, trigger: binding.trigger)] = entry
        }
    }

    /// True when some hook listens to `trigger` in `subscribeKey`.
    func has(_ trigger: HookTrigger, in subscribeKey: String) -> Bool {
        entries[Key(subscribeKey: subscribeKey, trigger: trigger)] != nil
    }

    /// The positions of the bindings matching `channel` (or an on-request path), in configuration order.
    func matches(_ trigger: HookTrigger, subscribeKey: String, channel: String) -> [Int] {
        guard let entry = entries[Key(subscribeKey: subscribeKey, trigger: trigger)] else { return [] }
        var found = entry.exact[channel] ?? []
        if !entry.prefixes.isEmpty, trigger != .onRequest {
            for prefix in NameRules.wildcardPrefixes(of: channel) {
                if let more = entry.prefixes[prefix] { found.append(contentsOf: more) }
            }
        }
        found.append(contentsOf: entry.all)
        if found.count > 1 {
            var seen = Set<Int>()
            found = found.filter { seen.insert($0).inserted }.sorted()
        }
        return found
    }
}
