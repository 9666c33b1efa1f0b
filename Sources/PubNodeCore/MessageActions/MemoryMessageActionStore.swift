import Synchronization

/// Message actions kept in memory (nodes without a history database, tests).
public final class MemoryMessageActionStore: MessageActionStore {
    private struct Key: Hashable {
        var subscribeKey: String
        var channel: String
    }

    /// Each channel's actions in action-timetoken order.
    private let channels = Mutex<[Key: [MessageAction]]>([:])

    /// Creates an empty store.
    public init() {}

    /// Adds the action unless it repeats one of its uuid or the message is full.
    public func add(_ action: MessageAction, limit: Int, now: UInt64) throws(HistoryError) -> MessageActionAddOutcome {
        channels.withLock { channels in
            let key = Key(subscribeKey: action.subscribeKey, channel: action.channel)
            var list = channels[key] ?? []
            list.removeAll {
                $0.messageTimetoken == action.messageTimetoken && $0.uuid == action.uuid && $0.type == action.type
                    && $0.value == action.value && $0.isExpired(at: now)
            }
            var onMessage = 0
            for other in list where other.messageTimetoken == action.messageTimetoken && !other.isExpired(at: now) {
                if other.uuid == action.uuid, other.type == action.type, other.value == action.value { return .duplicate }
                onMessage += 1
            }
            guard onMessage < limit else { return .full }
            let index = list.firstIndex { $0.actionTimetoken > action.actionTimetoken } ?? list.endIndex
            list.insert(action, at: index)
            channels[key] = list
            return .added
        }
    }

    /// Removes the action if `uuid` added it.
    public func remove(subscribeKey: String, channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
                       uuid: String, now: UInt64) throws(HistoryError) -> MessageActionRemoveOutcome {
        channels.withLock { channels in
            let key = Key(subscribeKey: subscribeKey, channel: channel)
            guard var list = channels[key], let index = list.firstIndex(where: {
                $0.messageTimetoken == messageTimetoken && $0.actionTimetoken == actionTimetoken && !$0.isExpired(at: now)
            }) else { return .notFound }
            guard list[index].uuid == uuid else { return .wrongUUID }
            let removed = list.remove(at: index)
            channels[key] = list.isEmpty ? nil : list
            return .removed(removed)
        }
    }

    /// The newest `limit` unexpired actions in `range`, oldest first.
    public func actions(subscribeKey: String, channel: String, range: HistoryRange, limit: Int, now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        guard limit > 0 else { return [] }
        return Array(live(subscribeKey, channel, now).filter { range.contains($0.actionTimetoken) }.suffix(limit))
    }

    /// The unexpired actions of the messages in `messages`, by message then action timetoken.
    public func actions(subscribeKey: String, channel: String, messages: ClosedRange<UInt64>, now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        live(subscribeKey, channel, now).filter { messages.contains($0.messageTimetoken.rawValue) }
            .sorted { ($0.messageTimetoken, $0.actionTimetoken) < ($1.messageTimetoken, $1.actionTimetoken) }
    }

    /// Deletes the actions of the messages in `range`.
    @discardableResult
    public func delete(subscribeKey: String, channel: String, messages range: HistoryRange) throws(HistoryError) -> Int {
        channels.withLock { channels in
            let key = Key(subscribeKey: subscribeKey, channel: channel)
            guard let list = channels[key] else { return 0 }
            let kept = list.filter { !range.contains($0.messageTimetoken) }
            channels[key] = kept.isEmpty ? nil : kept
            return list.count - kept.count
        }
    }

    /// Deletes every action of a subscribe key.
    @discardableResult
    public func deleteAll(subscribeKey: String) throws(HistoryError) -> Int {
        channels.withLock { channels in
            var removed = 0
            for key in channels.keys where key.subscribeKey == subscribeKey {
                removed += channels.removeValue(forKey: key)?.count ?? 0
            }
            return removed
        }
    }

    /// Deletes up to `limit` expired actions.
    @discardableResult
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int {
        channels.withLock { channels in
            var removed = 0
            for (key, list) in channels where removed < limit {
                var kept: [MessageAction] = []
                for action in list {
                    if removed < limit, action.isExpired(at: now) { removed += 1 } else { kept.append(action) }
                }
                channels[key] = kept.isEmpty ? nil : kept
            }
            return removed
        }
    }

    private func live(_ subscribeKey: String, _ channel: String, _ now: UInt64) -> [MessageAction] {
        let list = channels.withLock { $0[Key(subscribeKey: subscribeKey, channel: channel)] ?? [] }
        return list.filter { !$0.isExpired(at: now) }
    }
}
