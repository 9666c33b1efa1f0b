import Logging
import NIOCore
import PubNodeCore
import Synchronization

/// What a node shares with the rest of its cluster through Redis, and how it receives what the
/// others publish: the state behind `RedisBroker`.
///
/// Each subscribe key keeps a local `ChannelHub` for parking polls and fanning out. A message
/// reaches it only as a push from Redis (also when this node accepted it), in the order Redis ran
/// the appends, so every node's buffers agree. A node receives a channel (`ClusterTopic`) while it
/// has subscribers of it: the first poll that needs it subscribes in Redis and reads the shared
/// buffer before it parks; the sweep stops receiving topics nobody used for `idleNanoseconds`.
final class RedisCluster: Sendable {
    let hubs: MemoryHubs
    let log: RedisChannelLog
    let clock: TimetokenClock
    let wall: ClusterWallClock?
    let region: Int
    let logger: Logger
    let topics = ShardedMap<ClusterTopic, ClusterTopicState>(shardCount: 16)
    /// How long a topic nobody waits on stays received.
    let idleNanoseconds: UInt64
    /// Told (subscribe key, uuid) when a uuid left on any node (the presence store forgets when
    /// it last wrote that uuid's presence, so its next poll announces it again).
    let onLeft = Mutex<(@Sendable (String, String) -> Void)?>(nil)
    /// The pub/sub channel announcing group changes to every node.
    var controlChannel: String { "\(log.prefix):control" }

    init(hubs: MemoryHubs, log: RedisChannelLog, clock: TimetokenClock, wall: ClusterWallClock?, region: Int,
         idleNanoseconds: UInt64, logger: Logger) {
        self.hubs = hubs
        self.log = log
        self.clock = clock
        self.wall = wall
        self.region = region
        self.idleNanoseconds = idleNanoseconds
        self.logger = logger
    }

    /// A pushed message: a channel's message, or a group change on the control channel. Runs on
    /// the link's loop, in Redis's order.
    func received(_ push: RedisPushMessage, link: RedisLink) {
        if push.channel == controlChannel {
            let notice = push.payload.getString(at: push.payload.readerIndex, length: push.payload.readableBytes) ?? ""
            if notice.hasPrefix("g") {
                groupChanged(notice, link: link)
            } else if notice.hasPrefix("u"), let (subscribeKey, uuid) = ClusterTopic.parse(notice, head: "u") {
                onLeft.withLock { $0 }?(subscribeKey, uuid)
            }
            return
        }
        guard let (subscribeKey, channel) = ClusterTopic.parse(redisChannel: push.channel, prefix: log.prefix),
              let hub = hubs.hub(subscribeKey) else { return }
        do {
            let (timetoken, record) = try RedisChannelLog.decodePush(push.payload)
            hub.deliver(message(record, channel: channel, timetoken: timetoken, subscribeKey: subscribeKey))?.wakeAll()
        } catch {
            logger.error("unreadable cluster message", metadata: ["channel": "\(push.channel)", "error": "\(error)"])
        }
    }

    /// The message a record stands for.
    func message(_ record: ClusterRecord, channel: String, timetoken: Timetoken, subscribeKey: String) -> PublishedMessage {
        PublishedMessage(draft: record.draft(channel: channel), timetoken: timetoken, subscribeKey: subscribeKey,
                         region: region, publishedAtNanoseconds: record.publishedAtNanoseconds)
    }

    /// After each (re)connection, on the link's loop: listens for group changes, then receives
    /// again every topic it had (reading what it missed meanwhile).
    func linkUp(_ link: RedisLink) {
        guard let subscriber = try? link.subscriber() else { return }
        // Polls read nothing until their topics have caught up again.
        var again: [(ClusterTopic, ClusterTopicState)] = []
        for (topic, state) in topics.entries() {
            let rewarm = state.inner.withLock { inner -> Bool in
                guard inner.phase != .idle, !inner.removed else { return false }
                inner.phase = .warming
                return true
            }
            if rewarm { again.append((topic, state)) }
        }
        // Groups are read again only once changes to them are heard, so none is missed between.
        subscriber.subscribe([controlChannel]).whenComplete { [again] result in
            if case .failure(let error) = result {
                self.logger.error("cluster control channel not subscribed", metadata: ["error": "\(error)"])
            }
            for (topic, state) in again { self.warm(topic, state, link: link) }
        }
    }

    /// Redis's time, from the link's probe: the node's clock follows it.
    func redisTime(_ nanoseconds: UInt64) {
        guard let wall else { return }
        wall.measured(redisNanoseconds: nanoseconds, localNanoseconds: wall.localNanoseconds())
    }
}
