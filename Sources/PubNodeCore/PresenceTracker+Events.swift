extension PresenceTracker {
    /// Reports one change of a channel: as its own event, or — above announce-max — into the deltas
    /// of the next `interval` event. Called with the channel's mutex held, after the change.
    ///
    /// A channel enters announce-max mode when its occupancy exceeds `announceMax` and leaves it at
    /// the first interval tick that finds the occupancy back at or below it, after that tick's event
    /// has carried the remaining deltas. In that mode `state-change` events are not sent either.
    func announce(_ action: PresenceEvent.Action, uuid: String, state: [UInt8]?, room: inout ChannelPresence.Inner,
                  channel: String, now: UInt64, emit: (PresenceEvent) -> Void) {
        if !room.announcing, room.occupants.count > settings.announceMax {
            room.announcing = true
            room.nextIntervalAt = now &+ UInt64(settings.intervalSeconds) &* 1_000_000_000
            announcing.withLock { _ = $0.insert(channel) }
        }
        if let observer {
            observer(PresenceEvent(channel: channel, action: action, uuid: uuid, occupancy: room.occupants.count,
                                   timestamp: Self.seconds(now), state: state))
        }
        guard room.announcing else {
            emit(PresenceEvent(channel: channel, action: action, uuid: uuid, occupancy: room.occupants.count,
                               timestamp: Self.seconds(now), state: state))
            return
        }
        // A change that undoes one still pending cancels it, so the deltas describe the net change.
        switch action {
        case .join:
            if room.left.remove(uuid) == nil, room.timedOut.remove(uuid) == nil { room.joined.insert(uuid) }
        case .leave:
            if room.joined.remove(uuid) == nil { room.left.insert(uuid) }
        case .timeout:
            if room.joined.remove(uuid) == nil { room.timedOut.insert(uuid) }
        case .stateChange, .interval:
            break
        }
    }

    /// Emits the `interval` events that are due; returns how many.
    func emitIntervals(now: UInt64, emit: (PresenceEvent) -> Void) -> Int {
        let names = announcing.withLock { $0 }
        var emitted = 0
        for channel in names {
            guard let room = rooms.get(channel) else {
                announcing.withLock { _ = $0.remove(channel) }
                continue
            }
            room.inner.withLock { inner in
                guard !inner.reclaimed, inner.announcing, now >= inner.nextIntervalAt else { return }
                emit(intervalEvent(channel: channel, room: inner, now: now))
                emitted += 1
                inner.joined = []
                inner.left = []
                inner.timedOut = []
                inner.nextIntervalAt = now &+ UInt64(settings.intervalSeconds) &* 1_000_000_000
                if inner.occupants.count <= settings.announceMax {
                    inner.announcing = false
                    announcing.withLock { _ = $0.remove(channel) }
                }
            }
            reclaimIfIdle(room: channel)
        }
        return emitted
    }

    /// The `interval` event for a channel's current deltas, or its `here_now_refresh` form when the
    /// deltas would make the event larger than `maxEventBytes`.
    func intervalEvent(channel: String, room: ChannelPresence.Inner, now: UInt64) -> PresenceEvent {
        var event = PresenceEvent(channel: channel, action: .interval, uuid: nil, occupancy: room.occupants.count,
                                  timestamp: Self.seconds(now))
        event.joined = room.joined.sorted()
        event.left = room.left.sorted()
        event.timedOut = room.timedOut.sorted()
        if event.payload().count > settings.maxEventBytes {
            event.joined = []
            event.left = []
            event.timedOut = []
            event.hereNowRefresh = true
        }
        return event
    }
}
