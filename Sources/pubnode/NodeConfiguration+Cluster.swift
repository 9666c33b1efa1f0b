import PubNodeCore
import PubNodeRedis

extension NodeConfiguration {
    /// `redis`: the Redis a cluster member shares channels, buffers and groups through.
    static let redisSetting = Setting(
        key: "redis", flag: "redis", environment: "PUBNODE_REDIS", allowed: "redis://[[user]:password@]host[:port][/db]",
        help: "Join a cluster through this Redis (nodes on one Redis behave as one node); unset: a single node.",
        repeatable: false,
        parse: { config, value throws(ConfigurationError) in
            do { config.redis = try RedisAddress(url: value) } catch { throw ConfigurationError("redis: \(error)") }
        },
        readJSON: nil,
        render: { $0.redis.map(\.description) ?? "" })
}
