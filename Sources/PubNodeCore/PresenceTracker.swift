import Synchronization

/// Who is present where in one keyset, with their state, timeouts and the events that follow.
///
/// Two sharded indexes hold the same facts from both sides: users (uuid → channels with expiry,
/// timeout and state) and channels (channel → occupant uuids). There is no keyset-wide lock:
/// each user and each channel has its own mutex. When both sides change, the user's mutex is taken
/// first and the channel's inside it, never the reverse, so where-now (user side) and here-now
/// (channel side) always agree. A plain refresh (already present, same channels) takes only the
/// user's mutex: subscribers re-polling after every message do not meet on a shared lock.
///
/// Events are handed to `emit` while the channel's mutex is held, so the events of one channel
/// reach its `-pnpres` buffer in the order the changes happened.
public final class PresenceTracker: Sendable {
    /// The rules in force.
    public let settings: PresenceSettings
    let clock: TimetokenClock
    let users = ShardedMap<String, UserPresence>()
    let rooms = ShardedMap<String, ChannelPresence>()
    /// Channels above announce-max, visited by the sweeper for `interval` events. A leaf lock:
    /// taken inside a channel's mutex, never around one.
    let announcing = Mutex<Set<String>>([])
    /// Told of every per-uuid change, even above announce-max (the after-presence hooks). Called
    /// with the channel's mutex held: it must only queue the event.
    let observer: (@Sendable (PresenceEvent) -> Void)?
    /// Counts leaves, timeouts and changed timeouts, for `PresenceReceipt`.
    let epoch = PresenceEpoch()

    /// Creates an empty tracker reading time from `clock`; `observer` sees every per-uuid change.
    public init(settings: PresenceSettings, clock: TimetokenClock, observer: (@Sendable (PresenceEvent) -> Void)? = nil) {
        self.settings = settings
        self.clock = clock
        self.observer = observer
    }

    /// Marks `uuid` present on `channels` (a subscribe or heartbeat) for `timeoutSeconds`.
    ///
    /// A uuid not yet present joins (`join` event, with its state). One already present is refreshed:
    /// only its own record is touched, unless `states` changes its state there (`state-change`).
    /// `states` maps a channel to its new state (nil clears it); channels not in it keep theirs.
    /// Returns false, changing nothing, when `states` would leave the uuid with state on more
    /// than `stateLimit` channels.
    @discardableResult
    public func touch(uuid: String, channels: [String], timeoutSeconds: Int, states: [String: [UInt8]?] = [:],
                      stateLimit: Int = .max, emit: (PresenceEvent) -> Void) -> Bool {
        guard !channels.isEmpty else { return true }
        let now = clock.nowNanoseconds()
        let expiry = now &+ UInt64(max(timeoutSeconds, 1)) &* 1_000_000_000
        let touched = withUser(uuid) { user -> Bool in
            guard states.isEmpty || Self.statesFit(user, states, limit: stateLimit) else { return false }
            for channel in channels {
                if states.isEmpty, let index = user.entries.index(forKey: channel), user.entries.values[index].present {
                    // A refresh without state (nearly every poll): the entry is changed in place.
                    // Another timeout than the entry's may shorten an expiry a receipt relies on.
                    if user.entries.values[index].timeoutSeconds != timeoutSeconds { epoch.advance() }
                    user.entries.values[index].expiresAt = expiry
                    user.entries.values[index].timeoutSeconds = timeoutSeconds
                } else if var entry = user.entries[channel], entry.present {
                    if entry.timeoutSeconds != timeoutSeconds { epoch.advance() }
                    entry.expiresAt = expiry
                    entry.timeoutSeconds = timeoutSeconds
                    let changed = states[channel].map { $0 != entry.state } ?? false
                    if changed { entry.state = states[channel]! }
                    user.entries[channel] = entry
                    if changed {
                        withRoom(channel) { room in
                            announce(.stateChange, uuid: uuid, state: entry.state, room: &room, channel: channel,
                                     now: now, emit: emit)
                        }
                    }
                } else {
                    let state: [UInt8]? = states[channel] ?? user.entries[channel]?.state
                    user.entries[channel] = UserPresence.Entry(present: true, expiresAt: expiry,
                                                               timeoutSeconds: timeoutSeconds, state: state)
                    withRoom(channel) { room in
                        room.occupants.insert(uuid)
                        announce(.join, uuid: uuid, state: state, room: &room, channel: channel, now: now, emit: emit)
                    }
                }
            }
            user.nextExpiry = min(user.nextExpiry, expiry)
            return true
        }
        // A refused touch may have created an empty record: it must not outlive the request.
        if !touched { reclaimIfEmpty(user: uuid) }
        return touched
    }

    /// Whether giving the user the states in `changes` (channel to state, nil clearing it) keeps
    /// it within `limit` channels with state.
    static func statesFit(_ user: UserPresence.Inner, _ changes: [String: [UInt8]?], limit: Int) -> Bool {
        guard limit < .max else { return true }
        var count = 0
        for entry in user.entries.values where entry.state != nil { count += 1 }
        for (channel, state) in changes where (user.entries[channel]?.state != nil) != (state != nil) {
            count += state != nil ? 1 : -1
        }
        return count <= limit
    }

    /// Removes `uuid` from `channels` at once (`leave` events) and clears its state there.
    public func leave(uuid: String, channels: [String], emit: (PresenceEvent) -> Void) {
        let now = clock.nowNanoseconds()
        // A record reclaimed under us was empty; a fresh one may have replaced it, so look again.
        while let user = users.get(uuid) {
            let done = user.inner.withLock { inner -> Bool in
                guard !inner.reclaimed else { return false }
                for channel in channels {
                    guard let entry = inner.entries.removeValue(forKey: channel), entry.present else { continue }
                    depart(uuid, from: channel, as: .leave, now: now, emit: emit)
                }
                return true
            }
            if done { break }
        }
        reclaimIfEmpty(user: uuid)
    }

    /// Sets (or, with nil, clears) `uuid`'s state on `channels`.
    ///
    /// Where the uuid is present this emits `state-change`. Elsewhere the state is kept for the
    /// uuid's next join there, and dropped after the keyset's presence timeout if none comes.
    /// Returns false, changing nothing, when that would leave the uuid with state on more than
    /// `stateLimit` channels.
    @discardableResult
    public func setState(uuid: String, channels: [String], state: [UInt8]?, stateLimit: Int = .max,
                         emit: (PresenceEvent) -> Void) -> Bool {
        guard !channels.isEmpty else { return true }
        let now = clock.nowNanoseconds()
        let expiry = now &+ UInt64(settings.timeoutSeconds) &* 1_000_000_000
        let fits = withUser(uuid) { user -> Bool in
            guard Self.statesFit(user, Dictionary(channels.map { ($0, state) }, uniquingKeysWith: { a, _ in a }),
                                 limit: stateLimit) else { return false }
            for channel in channels {
                if var entry = user.entries[channel], entry.present {
                    entry.state = state
                    user.entries[channel] = entry
                    withRoom(channel) { room in
                        announce(.stateChange, uuid: uuid, state: state, room: &room, channel: channel, now: now, emit: emit)
                    }
                } else if let state {
                    user.entries[channel] = UserPresence.Entry(present: false, expiresAt: expiry,
                                                               timeoutSeconds: settings.timeoutSeconds, state: state)
                    user.nextExpiry = min(user.nextExpiry, expiry)
                } else {
                    user.entries[channel] = nil
                }
            }
            return true
        }
        reclaimIfEmpty(user: uuid)
        return fits
    }

    /// Takes `uuid` out of `channel`'s occupants and reports it; called with the user's mutex held,
    /// after its entry there is gone (counted in `epoch`).
    func depart(_ uuid: String, from channel: String, as action: PresenceEvent.Action, now: UInt64,
                emit: (PresenceEvent) -> Void) {
        epoch.advance()
        guard let room = rooms.get(channel) else { return }
        let idle = room.inner.withLock { inner -> Bool in
            guard !inner.reclaimed, inner.occupants.remove(uuid) != nil else { return false }
            announce(action, uuid: uuid, state: nil, room: &inner, channel: channel, now: now, emit: emit)
            return inner.occupants.isEmpty && !inner.announcing
        }
        if idle { reclaimIfIdle(room: channel) }
    }

    /// Runs `body` on the live record of `uuid`, creating it when absent.
    @discardableResult
    func withUser<R>(_ uuid: String, _ body: (inout UserPresence.Inner) -> R) -> R {
        while true {
            let user = users.getOrCreate(uuid) { UserPresence(uuid: uuid) }
            let result: R? = user.inner.withLock { inner in inner.reclaimed ? nil : body(&inner) }
            if let result { return result }
        }
    }

    /// Runs `body` on the live record of `channel`, creating it when absent.
    @discardableResult
    func withRoom<R>(_ channel: String, _ body: (inout ChannelPresence.Inner) -> R) -> R {
        while true {
            let room = rooms.getOrCreate(channel) { ChannelPresence(name: channel) }
            let result: R? = room.inner.withLock { inner in inner.reclaimed ? nil : body(&inner) }
            if let result { return result }
        }
    }

    /// Drops the record of a uuid that is on no channel and holds no state.
    func reclaimIfEmpty(user uuid: String) {
        users.remove(uuid) { user in
            user.inner.withLock { inner in
                guard inner.entries.isEmpty else { return false }
                inner.reclaimed = true
                return true
            }
        }
    }

    /// Drops the record of a channel with no occupants that is not in announce-max mode.
    func reclaimIfIdle(room channel: String) {
        rooms.remove(channel) { room in
            room.inner.withLock { inner in
                guard inner.occupants.isEmpty, !inner.announcing else { return false }
                inner.reclaimed = true
                return true
            }
        }
    }

    /// Unix seconds of a wall time in nanoseconds.
    static func seconds(_ nanoseconds: UInt64) -> Int { Int(nanoseconds / 1_000_000_000) }
}
