import NIOCore
import PubNodeCore

/// Every channel's buffer in Redis, shared by the nodes of a cluster: one Lua script issues each
/// message's timetoken, appends it to the channel's stream (trimmed to the buffer size) and
/// publishes it to the nodes subscribed to the channel, atomically.
///
/// The timetoken is the larger of Redis's `TIME` (in units of 100 ns, as PubNub's) and the
/// subscribe key's last timetoken plus one, so timetokens are unique and strictly increasing per
/// channel (and across the keyset's channels, in the order Redis ran the appends) whichever node
/// accepts the message, and close to wall time. Lua numbers are doubles,
/// which cannot hold a 17-digit timetoken exactly: the script keeps seconds and the 7 digits
/// below them apart. The stream entry's id is `<timetoken>-0`, so a catch-up is one `XRANGE`
/// after the cursor. The script keeps the newest timetoken a trim dropped beside the channel's
/// clock: the gap signal's `through`.
public struct RedisChannelLog: Sendable {
    /// The prefix of every key and pub/sub channel.
    public let prefix: String
    /// Messages kept per channel.
    public let capacity: Int
    /// Seconds an idle channel's stream and clock are kept.
    public let ttlSeconds: Int

    /// A log with keys under `prefix`.
    public init(prefix: String = "pubnode", capacity: Int = 100, ttlSeconds: Int = 86_400) {
        self.prefix = prefix
        self.capacity = capacity
        self.ttlSeconds = ttlSeconds
    }

    /// What a catch-up read found.
    public struct Read: Sendable, Equatable {
        /// The messages after the cursor, oldest first, with their timetokens.
        public var messages: [(timetoken: Timetoken, record: ClusterRecord)]
        /// The newest timetoken the channel's buffer has dropped, if any.
        public var droppedThrough: Timetoken?

        /// Compares timetokens and records.
        public static func == (lhs: Read, rhs: Read) -> Bool {
            lhs.droppedThrough == rhs.droppedThrough && lhs.messages.elementsEqual(rhs.messages) { $0 == $1 }
        }
    }

    /// The stream of a channel. Names are length-prefixed, so no subscribe key and channel pair can
    /// spell another's key.
    public func streamKey(_ subscribeKey: String, _ channel: String) -> String { key("s", subscribeKey, channel) }
    /// The subscribe key and channel of a stream key.
    func parseStreamKey(_ key: String) -> (subscribeKey: String, channel: String)? {
        ClusterTopic.parse(key, head: "\(prefix):s:")
    }

    /// The pub/sub channel nodes with subscribers of the channel listen on.
    public func topic(_ subscribeKey: String, _ channel: String) -> String { key("m", subscribeKey, channel) }
    /// The hash holding what the channel's buffer dropped (`d`).
    func channelKey(_ subscribeKey: String, _ channel: String) -> String { key("t", subscribeKey, channel) }
    /// The hash holding the subscribe key's last timetoken (`s` seconds, `l` the digits below).
    func clockKey(_ subscribeKey: String) -> String { "\(prefix):k:\(subscribeKey.utf8.count):\(subscribeKey)" }

    private func key(_ kind: String, _ subscribeKey: String, _ channel: String) -> String {
        "\(prefix):\(kind):\(subscribeKey.utf8.count):\(subscribeKey):\(channel)"
    }

    /// Appends `record` to the channel and publishes it; returns its timetoken.
    public func append(_ record: ClusterRecord, subscribeKey: String, channel: String,
                       on connection: RedisConnection) -> EventLoopFuture<Timetoken> {
        Self.appendScript.run(on: connection, keys: [.text(streamKey(subscribeKey, channel)), .text(channelKey(subscribeKey, channel)),
                                                          .text(clockKey(subscribeKey))],
                              arguments: [.bytes(record.encoded), .integer(Int64(capacity)), .integer(Int64(ttlSeconds)),
                                          .text(topic(subscribeKey, channel))])
            .flatMapThrowing { reply in
                guard let text = reply.string, let timetoken = Timetoken(parsing: Substring(text)) else {
                    throw RedisError.unexpectedReply("append answered \(reply)")
                }
                return timetoken
            }
    }

    /// The channel's buffered messages after `cursor`, at most `limit`, and what it has dropped.
    public func read(subscribeKey: String, channel: String, after cursor: Timetoken, limit: Int,
                     on connection: RedisConnection) -> EventLoopFuture<Read> {
        Self.readScript.run(on: connection, keys: [.text(streamKey(subscribeKey, channel)), .text(channelKey(subscribeKey, channel))],
                            arguments: [.text("(\(cursor)-0"), .integer(Int64(limit))])
            .flatMapThrowing { reply in try Self.decodeRead(reply) }
    }

    /// A pushed message: the timetoken and record the append script published.
    public static func decodePush(_ payload: ByteBuffer) throws(RedisError) -> (Timetoken, ClusterRecord) {
        var input = payload
        guard let colon = input.readableBytesView.firstIndex(of: UInt8(ascii: ":")),
              let text = input.readString(length: colon - input.readerIndex),
              let timetoken = Timetoken(parsing: Substring(text)) else { throw .unexpectedReply("push without a timetoken") }
        input.moveReaderIndex(forwardBy: 1)
        return (timetoken, try ClusterRecord(decoding: input))
    }

    private static func decodeRead(_ reply: RESPValue) throws -> Read {
        guard let parts = reply.array, parts.count == 2, let dropped = parts[0].string, let entries = parts[1].array else {
            throw RedisError.unexpectedReply("read answered \(reply)")
        }
        var messages: [(Timetoken, ClusterRecord)] = []
        messages.reserveCapacity(entries.count)
        for entry in entries {
            // An entry this version cannot read (another version's, say) is passed over, so one
            // bad record never blocks a channel's catch-up.
            guard let pair = entry.array, pair.count == 2, let id = pair[0].string, let timetoken = timetoken(ofID: id),
                  let fields = pair[1].array, fields.count == 2, let bytes = fields[1].bytes,
                  let record = try? ClusterRecord(decoding: bytes) else { continue }
            messages.append((timetoken, record))
        }
        let through = timetoken(ofID: dropped).flatMap { $0 == .zero ? nil : $0 }
        return Read(messages: messages, droppedThrough: through)
    }

    private static func timetoken(ofID id: String) -> Timetoken? {
        guard let dash = id.firstIndex(of: "-") else { return nil }
        return Timetoken(parsing: id[..<dash])
    }
}
