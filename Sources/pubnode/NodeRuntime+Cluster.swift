import Logging
import NIOPosix
import PubNodeCore
import PubNodeRedis
import PubNodeServer

/// A cluster member's broker and presence, and what runs and stops them.
struct ClusterParts {
    /// The cluster's message engine.
    let broker: RedisBroker
    /// Presence, shared through the same Redis.
    let presence: RedisPresenceStore
    /// The thread the Redis connections run on.
    let group: MultiThreadedEventLoopGroup

    /// Builds the parts for `address` and starts connecting (the node is not ready until Redis answers).
    static func make(_ address: RedisAddress, configuration: NodeConfiguration, clock: TimetokenClock,
                     wall: ClusterWallClock?, hooks: HookEngine, logger: Logger) -> ClusterParts {
        let hubs = MemoryHubs(limits: configuration.limits, clock: clock, region: configuration.region,
                              observer: hooks.presenceObserver(subscribeKey:))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let broker = RedisBroker(address: address, loop: group.next(), hubs: hubs, limits: configuration.limits,
                                 clock: clock, wall: wall, region: configuration.region,
                                 idleSeconds: max(configuration.limits.idleChannelSeconds, 60), logger: logger)
        logger.info("cluster member", metadata: ["redis": "\(address)"])
        broker.start()
        return ClusterParts(broker: broker, presence: RedisPresenceStore(broker: broker, observer: hooks.presenceObserver(subscribeKey:)),
                            group: group)
    }

    /// Closes the connections and their thread when the node drains.
    var service: ClosingService {
        ClosingService("redis") { [broker, group] in
            await broker.stop()
            try? await group.shutdownGracefully()
        }
    }

    /// The node is not ready while Redis is away.
    func addReadiness(to operations: Operations) {
        operations.readiness.addCheck("redis") { [broker] in broker.isUp }
    }
}
