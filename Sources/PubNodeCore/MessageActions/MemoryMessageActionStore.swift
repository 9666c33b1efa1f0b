import Synchronization

/// Message actions kept in memory (nodes without a history database, tests), at most `capacity`
/// in all and `keysetCapacity` per keyset, so clients cannot grow the node's memory without bound
/// and one keyset cannot use up another's room. Lookups scan a channel's actions: meant for
/// modest numbers.
public final class MemoryMessageActionStore: MessageActionStore {
    private struct Key: Hashable {
        var subscribeKey: String
        var channel: String
    }

    private struct State {
        /// Each channel's actions in action-timetoken order.
        var channels: [Key: [MessageAction]] = [:]
        /// Actions held, every keyset together.
        var count = 0
        /// Actions held per subscribe key.
        var counts: [String: Int] = [:]

        /// Counts `delta` more (or fewer) actions of `subscribeKey`.
        mutating func adjust(_ subscribeKey: String, by delta: Int) {
            count += delta
            let next = (counts[subscribeKey] ?? 0) + delta
            counts[subscribeKey] = next > 0 ? next : nil
        }
    }

    private let state = Mutex(State())
    /// The most actions held at once.
    public let capacity: Int
    /// The most actions one keyset holds at once.
    public let keysetCapacity: Int

    /// Creates an empty store holding at most `capacity` actions, `keysetCapacity` per keyset.
    public init(capacity: Int = 1_000_000, keysetCapacity: Int = 100_000) {
        self.capacity = capacity
        self.keysetCapacity = keysetCapacity
    }

    /// Adds the action unless it repeats one of its uuid or the message is full.
    public func add(_ action: MessageAction, limit: Int, now: UInt64) throws(HistoryError) -> MessageActionAddOutcome {
        state.withLock { state in
            let key = Key(subscribeKey: action.subscribeKey, channel: action.channel)
            var list = state.channels[key] ?? []
            let before = list.count
            list.removeAll {
                $0.messageTimetoken == action.messageTimetoken && $0.uuid == action.uuid && $0.type == action.type
                    && $0.value == action.value && $0.isExpired(at: now)
            }
            if list.count != before {
                state.adjust(action.subscribeKey, by: list.count - before)
                state.channels[key] = list.isEmpty ? nil : list
            }
            var onMessage = 0
            for other in list where other.messageTimetoken == action.messageTimetoken && !other.isExpired(at: now) {
                if other.uuid == action.uuid, other.type == action.type, other.value == action.value { return .duplicate }
                onMessage += 1
            }
            guard onMessage < limit else { return .full }
            guard state.count < capacity, state.counts[action.subscribeKey, default: 0] < keysetCapacity else { return .storeFull }
            let index = list.firstIndex { $0.actionTimetoken > action.actionTimetoken } ?? list.endIndex
            list.insert(action, at: index)
            state.channels[key] = list
            state.adjust(action.subscribeKey, by: 1)
            return .added
        }
    }

    /// Removes the action if `uuid` added it.
    public func remove(subscribeKey: String, channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
                       uuid: String, now: UInt64) throws(HistoryError) -> MessageActionRemoveOutcome {
        state.withLock { state in
            let key = Key(subscribeKey: subscribeKey, channel: channel)
            guard var list = state.channels[key], let index = list.firstIndex(where: {
                $0.messageTimetoken == messageTimetoken && $0.actionTimetoken == actionTimetoken && !$0.isExpired(at: now)
            }) else { return .notFound }
            guard list[index].uuid == uuid else { return .wrongUUID }
            let removed = list.remove(at: index)
            state.adjust(subscribeKey, by: -1)
            state.channels[key] = list.isEmpty ? nil : list
            return .removed(removed)
        }
    }

    /// The newest `limit` unexpired actions in `range`, oldest first.
    public func actions(subscribeKey: String, channel: String, range: HistoryRange, limit: Int, now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        guard limit > 0 else { return [] }
        return Array(live(subscribeKey, channel, now).filter { range.contains($0.actionTimetoken) }.suffix(limit))
    }

    /// The unexpired actions of exactly the messages `messages`, by message then action timetoken.
    public func actions(subscribeKey: String, channel: String, messages: [UInt64], now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        let wanted = Set(messages)
        return live(subscribeKey, channel, now).filter { wanted.contains($0.messageTimetoken.rawValue) }
            .sorted { ($0.messageTimetoken, $0.actionTimetoken) < ($1.messageTimetoken, $1.actionTimetoken) }
    }

    /// Deletes the actions of the messages in `range`.
    @discardableResult
    public func delete(subscribeKey: String, channel: String, messages range: HistoryRange) throws(HistoryError) -> Int {
        state.withLock { state in
            let key = Key(subscribeKey: subscribeKey, channel: channel)
            guard let list = state.channels[key] else { return 0 }
            let kept = list.filter { !range.contains($0.messageTimetoken) }
            state.channels[key] = kept.isEmpty ? nil : kept
            state.adjust(subscribeKey, by: kept.count - list.count)
            return list.count - kept.count
        }
    }

    /// Deletes every action of a subscribe key.
    @discardableResult
    public func deleteAll(subscribeKey: String) throws(HistoryError) -> Int {
        state.withLock { state in
            var removed = 0
            for key in state.channels.keys where key.subscribeKey == subscribeKey {
                removed += state.channels.removeValue(forKey: key)?.count ?? 0
            }
            state.adjust(subscribeKey, by: -removed)
            return removed
        }
    }

    /// Deletes up to `limit` expired actions.
    @discardableResult
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int {
        state.withLock { state in
            var removed = 0
            for (key, list) in state.channels where removed < limit {
                var kept: [MessageAction] = []
                for action in list {
                    if removed < limit, action.isExpired(at: now) { removed += 1 } else { kept.append(action) }
                }
                state.channels[key] = kept.isEmpty ? nil : kept
                state.adjust(key.subscribeKey, by: kept.count - list.count)
            }
            return removed
        }
    }

    private func live(_ subscribeKey: String, _ channel: String, _ now: UInt64) -> [MessageAction] {
        let list = state.withLock { $0.channels[Key(subscribeKey: subscribeKey, channel: channel)] ?? [] }
        return list.filter { !$0.isExpired(at: now) }
    }
}
