import Foundation

/// A node's statistics as `GET /v1/admin/stats` describes them: the node, its totals, each
/// keyset and the busiest channels. Counters are totals since the node started.
public struct NodeStats: Sendable, Equatable, Decodable {
    /// The node itself.
    public struct Overview: Sendable, Equatable, Decodable {
        /// When the node started, in Unix milliseconds.
        public var startedAt: Int64
        /// Seconds since it started.
        public var uptimeSeconds: Double
        /// Its current timetoken.
        public var timetoken: String
        /// Open HTTP connections.
        public var connections: Int
        /// Subscribe long-polls waiting for messages.
        public var parkedPolls: Int
        /// Whether it answers `/ready` with 200.
        public var ready: Bool
        /// Whether it is draining (shutting down).
        public var draining: Bool
    }

    /// Counters summed over every keyset.
    public struct Totals: Sendable, Equatable, Decodable {
        /// Messages published.
        public var publishes: Int64
        /// Signals sent.
        public var signals: Int64
        /// Fires sent (delivered to hooks only).
        public var fires: Int64
        /// Messages written to subscribers (one message to three subscribers counts 3).
        public var deliveries: Int64
        /// Catch-ups whose cursor was older than the channel's buffer.
        public var bufferGaps: Int64
        /// Requests the rate limiters refused.
        public var rateLimited: Int64
        /// Live channels.
        public var channels: Int
        /// Present uuids summed over channels.
        public var occupancy: Int
    }

    /// One keyset's counters.
    public struct KeysetStats: Sendable, Equatable, Decodable {
        /// The keyset's subscribe key.
        public var subscribeKey: String
        /// Live channels.
        public var channels: Int
        /// Channel groups.
        public var groups: Int
        /// Present uuids summed over its channels.
        public var occupancy: Int
        /// Messages published.
        public var publishes: Int64
        /// Signals sent.
        public var signals: Int64
        /// Fires sent.
        public var fires: Int64
        /// Messages written to subscribers.
        public var deliveries: Int64
        /// Catch-ups older than the buffer.
        public var bufferGaps: Int64
        /// Requests the rate limiters refused.
        public var rateLimited: Int64
    }

    /// One of the busiest channels.
    public struct ChannelStats: Sendable, Equatable, Decodable {
        /// The channel's keyset (subscribe key).
        public var subscribeKey: String
        /// The channel's name.
        public var name: String
        /// Messages published to it.
        public var publishes: Int64
        /// Its recent publish rate per second (over its buffer's last 10 seconds).
        public var perSecond: Double
        /// Messages in its buffer.
        public var buffered: Int
        /// Present uuids.
        public var occupancy: Int
        /// Long-polls parked on it.
        public var parked: Int
        /// The timetoken of its last message, if any.
        public var lastTimetoken: String?
    }

    /// The node itself.
    public var node: Overview
    /// Counters over every keyset.
    public var totals: Totals
    /// Each keyset.
    public var keysets: [KeysetStats]
    /// The busiest channels, busiest first.
    public var channels: [ChannelStats]
}

extension PubNodeClient {
    /// The largest number of busiest channels the stats endpoint lists.
    public static let maxStatsChannels = 200

    /// The node's statistics document as the node sent it (`GET /v1/admin/stats`), listing up to
    /// `channels` of its busiest channels (the node's default, 20, when nil).
    public func statsDocument(adminToken: String, channels: Int? = nil) async throws(PubNodeClientError) -> JSONValue {
        if let channels, !(0...Self.maxStatsChannels).contains(channels) {
            throw .invalidArgument("channels must be in 0...\(Self.maxStatsChannels)")
        }
        let query = channels.map { [("channels", String($0))] } ?? []
        return try await admin(["stats"], query: query, method: "GET", token: adminToken)
    }

    /// The node's statistics, listing up to `channels` of its busiest channels.
    public func stats(adminToken: String, channels: Int? = nil) async throws(PubNodeClientError) -> NodeStats {
        try await statsDocument(adminToken: adminToken, channels: channels).decode(NodeStats.self)
    }
}
