import NIOCore
import PubNodeCore

extension RedisCluster {
    /// The topics a poll on `subscription` needs: its channels, patterns and groups, and the
    /// channels of its groups once their membership is known here.
    func topics(of subscription: Subscription, subscribeKey: String, hub: ChannelHub) -> [ClusterTopic] {
        var needed: [ClusterTopic] = subscription.channels.map { .channel(subscribeKey: subscribeKey, name: $0) }
        for wildcard in subscription.wildcards { needed.append(.pattern(subscribeKey: subscribeKey, pattern: wildcard.pattern)) }
        for group in subscription.groups {
            let base = NameRules.presenceBase(group)
            let topic = ClusterTopic.group(subscribeKey: subscribeKey, name: base ?? group)
            needed.append(topic)
            guard topics.get(topic)?.inner.withLock({ $0.phase == .ready }) == true else { continue }
            for member in (try? hub.channels(inGroup: base ?? group)) ?? [] {
                needed.append(.channel(subscribeKey: subscribeKey, name: base == nil ? member : member + NameRules.presenceSuffix))
            }
        }
        return needed
    }

    /// Marks `needed` as used now and reports whether all are received; the ones that are not
    /// start warming, and `waiter` (if any) is woken once each is ready.
    func ensure(_ needed: [ClusterTopic], waiter: (any Waiter)?, link: RedisLink) -> Bool {
        let now = clock.nowNanoseconds()
        var allReady = true
        var start: [(ClusterTopic, ClusterTopicState)] = []
        for topic in needed {
            while true {
                let state = topics.getOrCreate(topic) { ClusterTopicState() }
                let outcome = state.inner.withLock { inner -> Bool? in
                    guard !inner.removed else { return nil }
                    inner.lastUsedNanoseconds = now
                    switch inner.phase {
                    case .ready: return true
                    case .idle:
                        inner.phase = .warming
                        start.append((topic, state))
                    case .warming: break
                    }
                    if let waiter, inner.waiters.count < ClusterTopicState.maxWaiters { inner.waiters.append(waiter) }
                    return false
                }
                guard let ready = outcome else { continue }
                allReady = allReady && ready
                break
            }
        }
        if !start.isEmpty {
            let warming = start
            link.loop.execute {
                for (topic, state) in warming { self.warm(topic, state, link: link) }
            }
        }
        return allReady
    }

    /// Whether every topic of `needed` is received here.
    func isReady(_ needed: [ClusterTopic]) -> Bool {
        needed.allSatisfy { topic in topics.get(topic)?.inner.withLock { $0.phase == .ready && !$0.removed } ?? false }
    }

    /// Subscribes to a topic in Redis, reads what the cluster buffered for it, then marks it
    /// ready and wakes the polls waiting for it. On the link's loop. While Redis is away it stays
    /// warming; the next connection warms it again.
    func warm(_ topic: ClusterTopic, _ state: ClusterTopicState, link: RedisLink) {
        guard let subscriber = try? link.subscriber(), let connection = try? link.connection() else { return }
        let subscribed: EventLoopFuture<Void>
        switch topic {
        case .channel: subscribed = subscriber.subscribe([topic.redisName(log, stream: false)!])
        case .pattern: subscribed = subscriber.psubscribe([topic.redisName(log, stream: false)!])
        case .group: subscribed = link.loop.makeSucceededVoidFuture()
        }
        subscribed.flatMap { self.catchUp(topic, connection: connection, link: link) }
            .hop(to: link.loop)
            .whenComplete { result in
                switch result {
                case .success:
                    let (waiters, again) = state.inner.withLock { inner -> ([any Waiter], Bool) in
                        guard inner.phase == .warming, !inner.removed else { return ([], false) }
                        inner.phase = .ready
                        let again = inner.changedWhileWarming
                        inner.changedWhileWarming = false
                        if again { inner.phase = .warming }
                        defer { inner.waiters = [] }
                        return (inner.waiters, again)
                    }
                    waiters.wakeAll()
                    if again { self.warm(topic, state, link: link) }
                case .failure(let error):
                    self.logger.warning("cluster topic not received yet", metadata: ["topic": "\(topic)", "error": "\(error)"])
                    guard link.isUp else { return }
                    link.loop.scheduleTask(in: .seconds(1)) { self.warm(topic, state, link: link) }
                }
            }
    }

    /// Reads what the cluster buffered for `topic` into the local hub.
    private func catchUp(_ topic: ClusterTopic, connection: RedisConnection, link: RedisLink) -> EventLoopFuture<Void> {
        guard let hub = hubs.hub(topic.subscribeKey) else { return link.loop.makeSucceededVoidFuture() }
        switch topic {
        case .channel(let key, let name):
            return readChannel(name, subscribeKey: key, hub: hub, connection: connection)
        case .pattern:
            return scanStreams(topic.redisName(log, stream: true)!, cursor: "0", rounds: 0, hub: hub, connection: connection)
        case .group(let key, let name):
            return members(of: name, subscribeKey: key, on: connection).hop(to: link.loop).flatMapThrowing { members in
                try hub.mirrorGroup(name, members: Set(members))
                // Its channels are received from now on, whoever waits on them.
                let channels = members.map { ClusterTopic.channel(subscribeKey: key, name: $0) }
                _ = self.ensure(channels, waiter: nil, link: link)
            }
        }
    }

    private func readChannel(_ channel: String, subscribeKey: String, hub: ChannelHub,
                             connection: RedisConnection) -> EventLoopFuture<Void> {
        log.read(subscribeKey: subscribeKey, channel: channel, after: .zero, limit: log.capacity, on: connection).map { read in
            let messages = read.messages.map { self.message($0.record, channel: channel, timetoken: $0.timetoken, subscribeKey: subscribeKey) }
            hub.resync(channel, messages: messages, droppedThrough: read.droppedThrough).wakeAll()
        }
    }

    /// Reads every channel under a pattern that has a buffer: `SCAN` over the streams, bounded.
    private func scanStreams(_ match: String, cursor: String, rounds: Int, hub: ChannelHub,
                             connection: RedisConnection) -> EventLoopFuture<Void> {
        connection.sendCommand(["SCAN", .text(cursor), "MATCH", .text(match), "COUNT", "1000"]).flatMap { reply in
            guard let parts = reply.array, parts.count == 2, let next = parts[0].string, let keys = parts[1].array else {
                return connection.channel.eventLoop.makeFailedFuture(RedisError.unexpectedReply("SCAN answered \(reply)"))
            }
            let reads = keys.compactMap { key -> EventLoopFuture<Void>? in
                guard let name = key.string, let (subscribeKey, channel) = self.log.parseStreamKey(name) else { return nil }
                return self.readChannel(channel, subscribeKey: subscribeKey, hub: hub, connection: connection)
            }
            let all = EventLoopFuture.andAllSucceed(reads, on: connection.channel.eventLoop)
            guard next != "0", rounds < Self.maxScanRounds else { return all }
            return all.flatMap { self.scanStreams(match, cursor: next, rounds: rounds + 1, hub: hub, connection: connection) }
        }
    }

    /// How many `SCAN` rounds a pattern's catch-up takes at most (each looks at about 1,000 keys).
    static let maxScanRounds = 64

    /// Stops receiving `subscribeKey`'s topics that nobody waits on and nobody used for the idle
    /// time. On the link's loop, so an unsubscribe is always written before a later subscribe.
    func sweepIdle(subscribeKey: String, link: RedisLink) {
        guard let hub = hubs.hub(subscribeKey) else { return }
        let since = clock.nowNanoseconds() &- idleNanoseconds
        // A topic still warming is given up only after every poll waiting for it has timed out.
        let stuck = clock.nowNanoseconds() &- idleNanoseconds &* 5
        link.loop.execute {
            var dropped: [ClusterTopic] = []
            self.topics.removeAll { topic, state in
                guard topic.subscribeKey == subscribeKey else { return false }
                return state.inner.withLock { inner in
                    guard inner.lastUsedNanoseconds < (inner.phase == .warming ? stuck : since) else { return false }
                    switch inner.phase {
                    case .ready:
                        guard !Self.inUse(topic, hub: hub) else { return false }
                        dropped.append(topic)
                    case .warming:
                        // Stuck (Redis away) and asked for by no poll for the idle time: its
                        // waiters have long been answered by their timeouts.
                        inner.waiters = []
                    case .idle:
                        break
                    }
                    inner.removed = true
                    return true
                }
            }
            for case .group(_, let name) in dropped {
                // Its local copy goes too: a later subscriber reads it again.
                do { try hub.mirrorGroup(name, members: []) } catch {
                    self.logger.error("local group copy not cleared", metadata: ["group": "\(name)", "error": "\(error)"])
                }
            }
            guard let subscriber = try? link.subscriber() else { return }
            let channels = dropped.compactMap { topic -> String? in
                if case .channel = topic { return topic.redisName(self.log, stream: false) } else { return nil }
            }
            let patterns = dropped.compactMap { topic -> String? in
                if case .pattern = topic { return topic.redisName(self.log, stream: false) } else { return nil }
            }
            _ = subscriber.unsubscribe(channels)
            _ = subscriber.punsubscribe(patterns)
        }
    }

    private static func inUse(_ topic: ClusterTopic, hub: ChannelHub) -> Bool {
        switch topic {
        case .channel(_, let name): hub.hasWaiters(onChannel: name)
        case .pattern(_, let pattern): hub.hasWaiters(onFanIn: pattern, group: false)
        case .group(_, let name): hub.hasWaiters(onFanIn: name, group: true)
                || hub.hasWaiters(onFanIn: name + NameRules.presenceSuffix, group: true)
        }
    }
}
