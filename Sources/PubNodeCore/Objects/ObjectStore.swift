import Synchronization

/// Where App Context objects live: uuid and channel metadata and memberships, per subscribe key.
/// A small protocol with an in-memory implementation here and a SQLite one in
/// `PubNodeHistorySQLite`. Lists are read whole (they are bounded per keyset by `Limits`) and
/// sorted, filtered and paged by the node, so every store pages alike.
///
/// Failures are `storageFailed`; `update`'s `change` may throw any refusal, which leaves the
/// store unchanged.
public protocol ObjectStore: Sendable {
    /// One object, nil when absent.
    func object(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> AppObject?
    /// Every object of a kind in a keyset.
    func objects(_ kind: ObjectKind, subscribeKey: String) throws(PubNodeError) -> [AppObject]
    /// Atomically reads an object, lets `change` compute its new value from it, and stores that;
    /// refuses (`invalidParameter`) a new object past `maxObjects` of its kind in the keyset.
    func update(_ kind: ObjectKind, subscribeKey: String, id: String, maxObjects: Int,
                _ change: (AppObject?) throws(PubNodeError) -> AppObject) throws(PubNodeError) -> AppObject
    /// Removes an object; false when there was none.
    func remove(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> Bool
    /// The memberships of a uuid (`uuid`) or the members of a channel (`channel`); give exactly one.
    func memberships(subscribeKey: String, uuid: String?, channel: String?) throws(PubNodeError) -> [AppMembership]
    /// Stores `set` (replacing records of the same pair) and deletes the pairs of `delete`, all at
    /// once; refuses (`invalidParameter`), changing nothing, when a uuid or channel would hold more
    /// than `maxPerObject` memberships or the keyset more than `maxPerKeyset`. Answers the records
    /// deleted that existed.
    func applyMemberships(subscribeKey: String, set: [AppMembership], delete: [(uuid: String, channel: String)],
                          maxPerObject: Int, maxPerKeyset: Int) throws(PubNodeError) -> [AppMembership]
    /// Forgets everything of a keyset.
    func deleteKeyset(_ subscribeKey: String) throws(PubNodeError)
}

/// The in-memory object store: one mutex over a dictionary per keyset.
public final class MemoryObjectStore: ObjectStore {
    private struct Keyset {
        var objects: [ObjectKind: [String: AppObject]] = [:]
        /// Memberships by uuid, then channel.
        var byUUID: [String: [String: AppMembership]] = [:]
        /// The same records by channel, then uuid.
        var byChannel: [String: [String: AppMembership]] = [:]
        /// How many memberships there are.
        var memberships = 0
    }

    private let keysets = Mutex<[String: Keyset]>([:])

    /// An empty store.
    public init() {}

    /// One object, nil when absent.
    public func object(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> AppObject? {
        keysets.withLock { $0[subscribeKey]?.objects[kind]?[id] }
    }

    /// Every object of a kind in a keyset.
    public func objects(_ kind: ObjectKind, subscribeKey: String) throws(PubNodeError) -> [AppObject] {
        keysets.withLock { Array(($0[subscribeKey]?.objects[kind] ?? [:]).values) }
    }

    /// Reads, changes and stores an object under the store's lock.
    public func update(_ kind: ObjectKind, subscribeKey: String, id: String, maxObjects: Int,
                       _ change: (AppObject?) throws(PubNodeError) -> AppObject) throws(PubNodeError) -> AppObject {
        let result: Result<AppObject, PubNodeError> = keysets.withLock { keysets in
            let existing = keysets[subscribeKey]?.objects[kind]?[id]
            if existing == nil, (keysets[subscribeKey]?.objects[kind]?.count ?? 0) >= maxObjects {
                return .failure(.invalidParameter("the keyset holds the most \(kind.rawValue) objects it may (\(maxObjects))"))
            }
            do throws(PubNodeError) {
                let updated = try change(existing)
                keysets[subscribeKey, default: Keyset()].objects[kind, default: [:]][id] = updated
                return .success(updated)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Removes an object.
    public func remove(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> Bool {
        keysets.withLock { $0[subscribeKey]?.objects[kind]?.removeValue(forKey: id) != nil }
    }

    /// A uuid's memberships or a channel's members.
    public func memberships(subscribeKey: String, uuid: String?, channel: String?) throws(PubNodeError) -> [AppMembership] {
        keysets.withLock { keysets in
            guard let keyset = keysets[subscribeKey] else { return [] }
            if let uuid { return Array((keyset.byUUID[uuid] ?? [:]).values) }
            if let channel { return Array((keyset.byChannel[channel] ?? [:]).values) }
            return []
        }
    }

    /// Sets and deletes memberships at once.
    public func applyMemberships(subscribeKey: String, set: [AppMembership], delete: [(uuid: String, channel: String)],
                                 maxPerObject: Int, maxPerKeyset: Int) throws(PubNodeError) -> [AppMembership] {
        let result: Result<[AppMembership], PubNodeError> = keysets.withLock { keysets in
            var keyset = keysets[subscribeKey] ?? Keyset()
            var removed: [AppMembership] = []
            for pair in delete {
                if let old = keyset.byUUID[pair.uuid]?.removeValue(forKey: pair.channel) {
                    removed.append(old)
                    keyset.memberships -= 1
                }
                keyset.byChannel[pair.channel]?.removeValue(forKey: pair.uuid)
                if keyset.byUUID[pair.uuid]?.isEmpty == true { keyset.byUUID[pair.uuid] = nil }
                if keyset.byChannel[pair.channel]?.isEmpty == true { keyset.byChannel[pair.channel] = nil }
            }
            for record in set {
                if keyset.byUUID[record.uuid]?[record.channel] == nil { keyset.memberships += 1 }
                keyset.byUUID[record.uuid, default: [:]][record.channel] = record
                keyset.byChannel[record.channel, default: [:]][record.uuid] = record
                if keyset.byUUID[record.uuid]!.count > maxPerObject || keyset.byChannel[record.channel]!.count > maxPerObject {
                    return .failure(.invalidParameter("a uuid or channel may hold at most \(maxPerObject) memberships"))
                }
            }
            if keyset.memberships > maxPerKeyset {
                return .failure(.invalidParameter("the keyset holds the most memberships it may (\(maxPerKeyset))"))
            }
            keysets[subscribeKey] = keyset
            return .success(removed)
        }
        return try result.get()
    }

    /// Forgets a keyset.
    public func deleteKeyset(_ subscribeKey: String) throws(PubNodeError) {
        _ = keysets.withLock { $0.removeValue(forKey: subscribeKey) }
    }
}
