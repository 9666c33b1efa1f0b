import PubNodeCore
import PubNodeServer

extension NodeConfiguration {
    /// Every setting, declared once: file key, flag, environment variable, accepted values, help
    /// and where it is stored. Defaults are the values of `NodeConfiguration()`.
    static let settings: [Setting] = [
        .text("host", flag: "host", environment: "PUBNODE_HOST", \.host, allowed: "address",
              help: "Address to bind."),
        .integer("port", flag: "port", environment: "PUBNODE_PORT", \.port, in: 0...65535,
                 help: "Port to bind (0 picks a free one)."),
        .text("dataDir", flag: "data-dir", environment: "PUBNODE_DATA_DIR", \.dataDirectory, allowed: "path",
              help: "Directory for the node's files (history database, hook outbox)."),
        .text("logLevel", flag: "log-level", environment: "PUBNODE_LOG_LEVEL", \.logLevel,
              allowed: logLevels.joined(separator: "|"), help: "Log level.") { value throws(ConfigurationError) in
            guard logLevels.contains(value.lowercased()) else {
                throw ConfigurationError("logLevel must be one of \(logLevels.joined(separator: ", "))")
            }
            return value.lowercased()
        },
        .text("logFormat", flag: "log-format", environment: "PUBNODE_LOG_FORMAT", \.logFormat,
              allowed: LogFormat.names.joined(separator: "|"),
              help: "Log line format: text, or one JSON object per line for log shippers.") { value throws(ConfigurationError) in
            guard LogFormat.names.contains(value.lowercased()) else {
                throw ConfigurationError("logFormat must be one of \(LogFormat.names.joined(separator: ", ")) (got '\(value)')")
            }
            return value.lowercased()
        },
        .integer("region", flag: "region", environment: "PUBNODE_REGION", \.region, in: 0...Int(Int32.max),
                 help: "Region number reported in timetokens."),
        .integer("eventLoopThreads", flag: "event-loop-threads", environment: "PUBNODE_EVENT_LOOP_THREADS",
                 \.eventLoopThreads, in: 0...256, help: "Event-loop threads; 0 = one per core."),
        .text("eventLoopScheduling", flag: "event-loop-scheduling", environment: "PUBNODE_EVENT_LOOP_SCHEDULING",
              \.eventLoopScheduling, allowed: schedulingNames.joined(separator: "|"),
              help: "Linux scheduling of the event-loop threads: batch (no wake-up preemption), normal (as "
                  + "started), or automatic (batch with more than one loop).") { value throws(ConfigurationError) in
            guard let scheduling = LoopScheduling(rawValue: value.lowercased()) else {
                throw ConfigurationError("eventLoopScheduling must be one of \(schedulingNames.joined(separator: ", ")) (got '\(value)')")
            }
            return scheduling.rawValue
        },
        keysetsSetting,
        appContextEventsSetting,
        .limit("bufferSize", flag: "buffer-size", environment: "PUBNODE_BUFFER_SIZE", \.limits.bufferSize,
               help: "Messages kept per channel."),
        .limit("messagesPerResponse", flag: "messages-per-response", environment: "PUBNODE_MESSAGES_PER_RESPONSE",
               \.limits.messagesPerResponse, help: "Most messages per subscribe response."),
        .limit("maxMessageBytes", flag: "max-message-bytes", environment: "PUBNODE_MAX_MESSAGE_BYTES",
               \.limits.maxMessageBytes, help: "Message size limit, in bytes."),
        .limit("maxSignalBytes", flag: "max-signal-bytes", environment: "PUBNODE_MAX_SIGNAL_BYTES",
               \.limits.maxSignalBytes, help: "Signal payload limit, in bytes."),
        .limit("maxBodyBytes", flag: "max-body-bytes", environment: "PUBNODE_MAX_BODY_BYTES",
               \.limits.maxBodyBytes, help: "Request body limit, in bytes."),
        .limit("maxChannelsPerSubscribe", flag: "max-channels-per-subscribe",
               environment: "PUBNODE_MAX_CHANNELS_PER_SUBSCRIBE", \.limits.maxChannelsPerSubscribe,
               help: "Channels per subscribe."),
        .limit("maxGroupsPerSubscribe", flag: "max-groups-per-subscribe", environment: "PUBNODE_MAX_GROUPS_PER_SUBSCRIBE",
               \.limits.maxGroupsPerSubscribe, help: "Channel groups per subscribe."),
        .limit("maxChannelsPerGroup", flag: "max-channels-per-group", environment: "PUBNODE_MAX_CHANNELS_PER_GROUP",
               \.limits.maxChannelsPerGroup, help: "Channels per channel group."),
        .limit("longPollTimeoutSeconds", flag: "long-poll-timeout", environment: "PUBNODE_LONG_POLL_TIMEOUT_SECONDS",
               \.limits.longPollTimeoutSeconds, help: "Seconds a subscribe stays parked."),
        .limit("idleChannelSeconds", flag: "idle-channel-seconds", environment: "PUBNODE_IDLE_CHANNEL_SECONDS",
               \.limits.idleChannelSeconds, help: "Seconds before an empty idle channel is reclaimed."),
        .limit("bufferRetentionSeconds", flag: "buffer-retention", environment: "PUBNODE_BUFFER_RETENTION_SECONDS",
               \.limits.bufferRetentionSeconds, help: "Seconds a buffered message is kept; 0 = until pushed out."),
        .limit("idleConnectionSeconds", flag: "idle-connection-seconds", environment: "PUBNODE_IDLE_CONNECTION_SECONDS",
               \.limits.idleConnectionSeconds,
               help: "Seconds a silent connection is kept open; must exceed the long-poll timeout."),
        .limit("presenceTimeoutSeconds", flag: "presence-timeout", environment: "PUBNODE_PRESENCE_TIMEOUT_SECONDS",
               \.limits.presenceTimeoutSeconds, help: "Seconds a uuid stays present without a heartbeat."),
        .limit("presenceMinTimeoutSeconds", flag: "presence-min-timeout",
               environment: "PUBNODE_PRESENCE_MIN_TIMEOUT_SECONDS", \.limits.presenceMinTimeoutSeconds,
               help: "Shortest presence timeout a client may ask for."),
        .limit("announceMax", flag: "announce-max", environment: "PUBNODE_ANNOUNCE_MAX", \.limits.announceMax,
               help: "Occupancy above which interval events replace per-uuid ones."),
        .limit("presenceIntervalSeconds", flag: "presence-interval", environment: "PUBNODE_PRESENCE_INTERVAL_SECONDS",
               \.limits.presenceIntervalSeconds, help: "Seconds between interval presence events."),
        .limit("maxStateBytes", flag: "max-state-bytes", environment: "PUBNODE_MAX_STATE_BYTES",
               \.limits.maxStateBytes, help: "Presence state size limit per uuid and channel, in bytes."),
        .limit("maxHeaderCount", flag: "max-header-count", environment: "PUBNODE_MAX_HEADER_COUNT",
               \.limits.maxHeaderCount, help: "Header fields per request; more: 431."),
        .limit("maxHeadBytes", flag: "max-head-bytes", environment: "PUBNODE_MAX_HEAD_BYTES",
               \.limits.maxHeadBytes, help: "Request line and headers, in bytes; more: 431."),
        .limit("requestTimeoutSeconds", flag: "request-timeout", environment: "PUBNODE_REQUEST_TIMEOUT_SECONDS",
               \.limits.requestTimeoutSeconds, help: "Seconds a request may take to arrive from its first byte; slower: 408."),
        .limit("maxGroupsPerKeyset", flag: "max-groups-per-keyset", environment: "PUBNODE_MAX_GROUPS_PER_KEYSET",
               \.limits.maxGroupsPerKeyset, help: "Channel groups per keyset."),
        .limit("maxStatesPerUUID", flag: "max-states-per-uuid", environment: "PUBNODE_MAX_STATES_PER_UUID",
               \.limits.maxStatesPerUUID, help: "Channels a uuid may hold presence state on."),
        .limit("maxActionsPerMessage", flag: "max-actions-per-message", environment: "PUBNODE_MAX_ACTIONS_PER_MESSAGE",
               \.limits.maxActionsPerMessage, help: "Message actions one message may hold."),
        .integer("sweepIntervalSeconds", flag: "sweep-interval-seconds", environment: "PUBNODE_SWEEP_INTERVAL_SECONDS",
                 \.sweepIntervalSeconds, in: 1...3600,
                 help: "Seconds between sweeps of expired buffered messages and idle channels."),
        .boolean("historyEnabled", flag: "history-enabled", environment: "PUBNODE_HISTORY_ENABLED", \.history.enabled,
                 help: "Keep message history (a keyset entry may override it)."),
        .integer("historyRetentionHours", flag: "history-retention-hours", environment: "PUBNODE_HISTORY_RETENTION_HOURS",
                 \.history.retentionHours, in: HistoryConfiguration.retentionRange,
                 help: "Hours history keeps a message without ttl; 0 = forever (a keyset entry may override it)."),
        .integer("historyFlushMilliseconds", flag: "history-flush-ms", environment: "PUBNODE_HISTORY_FLUSH_MILLISECONDS",
                 \.history.flushMilliseconds, in: 0...1000,
                 help: "Longest wait before stored messages are committed (group commit)."),
        .boolean("historyStrict", flag: "history-strict", environment: "PUBNODE_HISTORY_STRICT", \.history.strict,
                 help: "Acknowledge stored publishes only after their commit."),
        .boolean("historyAcceptEmpty", flag: "history-accept-empty", environment: "PUBNODE_HISTORY_ACCEPT_EMPTY",
                 \.history.acceptEmpty,
                 help: "When history files are missing or damaged, move them aside (renamed NAME.damaged-TIME) "
                     + "and start with empty history instead of refusing to start."),
        historyURLSetting,
        hookAllowListSetting,
        adminTokenSetting,
        redisSetting,
        .integer("clientConnectionLimit", flag: "client-connection-limit", environment: "PUBNODE_CLIENT_CONNECTION_LIMIT",
                 \.clientConnectionLimit, in: 0...1_000_000,
                 help: "Open connections per client IP address; 0 = unlimited. Over it: 429 and close."),
        .integer("connectionLimit", flag: "connection-limit", environment: "PUBNODE_CONNECTION_LIMIT",
                 \.connectionLimit, in: 0...10_000_000,
                 help: "Open connections to the node; 0 = the descriptor limit less 256. Over it: closed at once."),
        .boolean("limitPrivateAddresses", flag: "limit-private-addresses", environment: "PUBNODE_LIMIT_PRIVATE_ADDRESSES",
                 \.limitPrivateAddresses,
                 help: "Apply the per-client limits to loopback and private addresses too (where reverse proxies connect from)."),
        .integer("clientParkedLimit", flag: "client-parked-limit", environment: "PUBNODE_CLIENT_PARKED_LIMIT",
                 \.clientParkedLimit, in: 0...1_000_000,
                 help: "Parked subscribe long-polls per client IP address; 0 = unlimited. Over it: 429."),
        .rate("clientRequestRate", flag: "client-request-rate", environment: "PUBNODE_CLIENT_REQUEST_RATE",
              \.clientRequestRate, help: "Requests per second per client IP address (decimals allowed); 0 = unlimited."),
        .rate("keysetPublishRate", flag: "keyset-publish-rate", environment: "PUBNODE_KEYSET_PUBLISH_RATE",
              \.keysetRateLimits.publishesPerSecond,
              help: "Publishes per second per keyset, by default (decimals allowed); 0 = unlimited."),
        .rate("keysetRequestRate", flag: "keyset-request-rate", environment: "PUBNODE_KEYSET_REQUEST_RATE",
              \.keysetRateLimits.requestsPerSecond,
              help: "Requests per second per keyset, by default (decimals allowed); 0 = unlimited."),
        .boolean("metrics", flag: "metrics", environment: "PUBNODE_METRICS", \.metricsEnabled,
                 help: "Serve Prometheus metrics at /metrics (admin token on the main port)."),
        .integer("metricsPort", flag: "metrics-port", environment: "PUBNODE_METRICS_PORT", \.metricsPort, in: 0...65535,
                 help: "A second port serving /metrics without a token, /health and /ready; 0 = none."),
        .text("metricsHost", flag: "metrics-host", environment: "PUBNODE_METRICS_HOST", \.metricsHost, allowed: "address",
              help: "Address the metrics port binds."),
    ]

    /// Log level names swift-log knows.
    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The event-loop scheduling names (`LoopScheduling`).
    static let schedulingNames = LoopScheduling.allCases.map(\.rawValue)

    /// The setting with file key `key`.
    static func setting(_ key: String) -> Setting? {
        settings.first { $0.key == key }
    }
}
