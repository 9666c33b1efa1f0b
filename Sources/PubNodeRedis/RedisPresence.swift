import NIOCore
import PubNodeCore

/// One subscribe key's presence held in Redis, shared by the nodes of a cluster: every node lists
/// the users of every node, and every change (join, leave, timeout, state-change) is decided once,
/// atomically, by a Lua script, so its event is returned to exactly one caller in the cluster.
///
/// Times come from Redis `TIME` inside the scripts (one clock for the whole cluster). Every method
/// that reads the clock takes an optional `now` (Unix milliseconds) that replaces it, for tests;
/// production passes nil. Redis keys expire by themselves a minute after the last expiry they
/// hold, so a cluster that is gone leaves nothing behind. `interval` events (announce-max) are not
/// produced: every change is announced on its own.
public struct RedisPresence: Sendable {
    /// The most channels one call may name.
    public static let maxChannelsPerCall = 1_000
    /// The most entries one sweep may expire.
    public static let maxSweepLimit = 10_000

    /// The connection commands go through.
    public let connection: RedisConnection
    /// The prefix of every key.
    public let prefix: String
    /// The keyset.
    public let subscribeKey: String
    /// The keyset's presence rules (state size, the state expiry of `setState`).
    public let settings: PresenceSettings
    /// The most channels a uuid may hold state on (`Limits.maxStatesPerUUID`).
    public let maxStatesPerUUID: Int

    /// The presence of `subscribeKey` under `prefix`.
    public init(connection: RedisConnection, prefix: String = "pubnode", subscribeKey: String, settings: PresenceSettings,
                maxStatesPerUUID: Int = 1_000) {
        self.connection = connection
        self.prefix = prefix
        self.subscribeKey = subscribeKey
        self.settings = settings
        self.maxStatesPerUUID = maxStatesPerUUID
    }

    /// `<len>:<subscribe key>`: the keyset part of every key, length-prefixed so no pair of
    /// subscribe key and name spells another's key.
    var keyset: String { "\(subscribeKey.utf8.count):\(subscribeKey)" }
    /// The zset of a channel's uuids, scored by expiry (ms).
    public func channelKey(_ channel: String) -> String { "\(prefix):p:\(keyset):\(channel)" }
    /// The zset of a uuid's channels, scored by expiry (ms): where-now.
    public func uuidKey(_ uuid: String) -> String { "\(prefix):pu:\(keyset):\(uuid)" }
    /// The hash of a uuid's state, channel to JSON object text.
    public func stateKey(_ uuid: String) -> String { "\(prefix):ps:\(keyset):\(uuid)" }
    /// The zset of the keyset's channels scored by their latest expiry: global here-now.
    public var indexKey: String { "\(prefix):pc:\(keyset)" }
    /// The zset of every entry to expire (presence, and state kept for a later join), by expiry.
    public var queueKey: String { "\(prefix):px:\(keyset)" }

    /// Refreshes `uuid` on each channel for `timeoutSeconds` and sets its state where `states`
    /// names one (JSON object text; empty or `{}` removes it).
    ///
    /// Returns the events this call caused: `join` where the uuid was not present (with its state,
    /// given or kept from `setState`), `state-change` where a given state differs from the stored
    /// one, and `timeout` where an entry had expired unswept. A refused state changes nothing.
    public func heartbeat(uuid: String, channels: [String], timeoutSeconds: Int, states: [String: [UInt8]],
                          now: Int64? = nil) async throws -> [PresenceEvent] {
        let channels = try Self.bounded(channels)
        guard !channels.isEmpty else { return [] }
        var arguments: [RESPArgument] = [.integer(Int64(min(max(timeoutSeconds, 1), Int(Int32.max))) * 1_000),
                                         .integer(Int64(maxStatesPerUUID)), .text(uuid)]
        arguments.reserveCapacity(3 + 3 * channels.count)
        for channel in channels {
            arguments.append(.text(channel))
            if let given = states[channel] {
                if let state = try stored(given) {
                    arguments += [.text("s"), .bytes(ByteBuffer(bytes: state))]
                } else {
                    arguments += [.text("c"), .text("")]
                }
            } else {
                arguments += [.text("k"), .text("")]
            }
        }
        return try await write(Self.heartbeatScript, arguments, now: now)
    }

    /// Removes `uuid` from `channels` (and any state kept there); `leave` where it was present,
    /// `timeout` where its entry had expired unswept.
    public func leave(uuid: String, channels: [String], now: Int64? = nil) async throws -> [PresenceEvent] {
        let channels = try Self.bounded(channels)
        guard !channels.isEmpty else { return [] }
        return try await write(Self.leaveScript, [.text(uuid)] + channels.map { .text($0) }, now: now)
    }

    /// Sets (empty or `{}`: clears) `uuid`'s state on `channels` without touching its presence.
    ///
    /// Where the uuid is present a changed state gives `state-change`. Elsewhere the state is kept
    /// for the uuid's next join there and dropped after the keyset's presence timeout if none
    /// comes, as `PresenceTracker` does.
    public func setState(uuid: String, channels: [String], state: [UInt8], now: Int64? = nil) async throws -> [PresenceEvent] {
        let channels = try Self.bounded(channels)
        guard !channels.isEmpty else { return [] }
        let value = try stored(state)
        let arguments: [RESPArgument] = [.text(uuid), .integer(Int64(settings.timeoutSeconds) * 1_000),
                                         .integer(Int64(maxStatesPerUUID)),
                                         value.map { .bytes(ByteBuffer(bytes: $0)) } ?? .text("")]
        return try await write(Self.setStateScript, arguments + channels.map { .text($0) }, now: now)
    }

    /// `uuid`'s state on each of `channels`, in that order (nil where it has none).
    public func state(uuid: String, channels: [String]) async throws -> [(channel: String, state: [UInt8]?)] {
        let channels = try Self.bounded(channels)
        guard !channels.isEmpty else { return [] }
        let reply = try await connection.send(["HMGET", .text(stateKey(uuid))] + channels.map { .text($0) })
        guard let values = reply.array, values.count == channels.count else {
            throw RedisError.unexpectedReply("state answered \(reply)")
        }
        return zip(channels, values).map { ($0, $1.bytes.map { Array(buffer: $0) }) }
    }

    /// Removes entries whose expiry has passed, at most `limit`, and returns the `timeout` events
    /// of exactly those: when every node sweeps at once, each entry is removed by one of them.
    public func sweep(limit: Int, now: Int64? = nil) async throws -> [PresenceEvent] {
        let limit = min(max(limit, 1), Self.maxSweepLimit)
        return try await write(Self.sweepScript, [.integer(Int64(limit))], now: now)
    }

    /// Deletes every key of the keyset's presence (the keyset is deleted).
    public func purge() async throws {
        while true {
            let reply = try await run(Self.purgeScript, [.integer(1_000)], now: nil)
            guard let left = reply.int else { throw RedisError.unexpectedReply("purge answered \(reply)") }
            if left == 0 { return }
        }
    }

    /// A state as stored: validated JSON object text within `maxStateBytes`; nil for empty or `{}`.
    private func stored(_ state: [UInt8]) throws -> [UInt8]? {
        state.isEmpty ? nil : try PresenceState.object(state, limit: settings.maxStateBytes)
    }

    /// `channels` without repeats (first occurrence kept), refused beyond `maxChannelsPerCall`.
    static func bounded(_ channels: [String]) throws -> [String] {
        guard channels.count <= maxChannelsPerCall else { throw PubNodeError.tooManyChannels(limit: maxChannelsPerCall) }
        var seen = Set<String>()
        return channels.filter { seen.insert($0).inserted }
    }

    /// Runs a writing script and decodes the events it returns.
    private func write(_ script: RedisScript, _ arguments: [RESPArgument], now: Int64?) async throws -> [PresenceEvent] {
        let reply: RESPValue
        do {
            reply = try await run(script, arguments, now: now)
        } catch RedisError.reply(let text) where text.contains("TOOMANYSTATES") {
            throw PubNodeError.tooManyStates(limit: maxStatesPerUUID)
        }
        return try Self.decodeEvents(reply)
    }

    /// Runs a script of the prelude's shape: index and queue as keys, then prefix, keyset and now.
    func run(_ script: RedisScript, _ arguments: [RESPArgument], now: Int64?) async throws -> RESPValue {
        try await script.run(on: connection, keys: [.text(indexKey), .text(queueKey)],
                             arguments: [.text(prefix), .text(keyset), Self.nowArgument(now)] + arguments).get()
    }

    /// `{unix seconds, {{action, channel, uuid, occupancy, state or nil}…}}` as events.
    static func decodeEvents(_ reply: RESPValue) throws -> [PresenceEvent] {
        guard let parts = reply.array, parts.count == 2, let seconds = parts[0].int, let entries = parts[1].array else {
            throw RedisError.unexpectedReply("presence script answered \(reply)")
        }
        return try entries.map { entry in
            guard let fields = entry.array, fields.count == 5, let name = fields[0].string,
                  let action = PresenceEvent.Action(rawValue: name), let channel = fields[1].string,
                  let uuid = fields[2].string, let occupancy = fields[3].int else {
                throw RedisError.unexpectedReply("presence event \(entry)")
            }
            return PresenceEvent(channel: channel, action: action, uuid: uuid, occupancy: Int(occupancy),
                                 timestamp: Int(seconds), state: fields[4].bytes.map { Array(buffer: $0) })
        }
    }
}
