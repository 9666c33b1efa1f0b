import PubNodeCore
import Synchronization

/// Something a node receives from the cluster while it has subscribers of it: a channel (a Redis
/// pub/sub channel), a wildcard pattern (a Redis pattern) or a channel group (its membership,
/// whose changes come on the control channel; its channels are channel topics of their own).
enum ClusterTopic: Hashable, Sendable {
    case channel(subscribeKey: String, name: String)
    case pattern(subscribeKey: String, pattern: String)
    case group(subscribeKey: String, name: String)

    var subscribeKey: String {
        switch self {
        case .channel(let key, _), .pattern(let key, _), .group(let key, _): key
        }
    }
}

/// One topic's state on this node.
///
/// `idle`: not received. `warming`: subscribing in Redis and reading what the cluster buffered;
/// polls that need it wait in `waiters` and are woken when it is `ready`. `ready`: received, and
/// the local buffers hold what the cluster buffered.
final class ClusterTopicState: Sendable {
    enum Phase: Sendable { case idle, warming, ready }

    struct Inner {
        var phase = Phase.idle
        var waiters: [any Waiter] = []
        var lastUsedNanoseconds: UInt64 = 0
        /// Taken out of the map by the idle sweep: a poll that still holds it looks it up again.
        var removed = false
        /// A group changed while its members were being read: read them again once done.
        var changedWhileWarming = false
    }

    let inner = Mutex<Inner>(Inner())

    /// Polls waiting for one topic to warm are bounded: beyond this a poll is simply not woken
    /// early and answers at its long-poll timeout.
    static let maxWaiters = 100_000
}

extension ClusterTopic {
    /// The pub/sub name or pattern of a channel or wildcard topic in `log`'s naming, or (`stream`)
    /// the name or pattern of its buffers' keys.
    func redisName(_ log: RedisChannelLog, stream: Bool) -> String? {
        let name = stream ? log.streamKey : log.topic
        switch self {
        case .channel(let key, let channel): return name(key, channel)
        case .pattern(let key, let pattern):
            // `a.*` → `<topic of "a.">*`; `a.*-pnpres` → `<topic of "a.">*-pnpres`. A superset of
            // what the pattern matches: the hub picks the exact channels.
            if pattern.hasSuffix("*" + NameRules.presenceSuffix) {
                return Self.escapeGlob(name(key, String(pattern.dropLast(NameRules.presenceSuffix.count + 1))))
                    + "*" + Self.escapeGlob(NameRules.presenceSuffix)
            }
            return Self.escapeGlob(name(key, String(pattern.dropLast()))) + "*"
        case .group: return nil
        }
    }

    /// `text` with Redis glob's special characters escaped.
    static func escapeGlob(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            if "*?[]\\^".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// The subscribe key and channel of a pushed message's Redis channel (`<prefix>:m:<len>:<sub>:<channel>`).
    static func parse(redisChannel: String, prefix: String) -> (subscribeKey: String, channel: String)? {
        parse(redisChannel, head: "\(prefix):m:")
    }

    /// The subscribe key and channel of a name `<head><len>:<sub>:<channel>` (once per pushed
    /// message: read in place, without copying the name).
    static func parse(_ name: String, head: String) -> (subscribeKey: String, channel: String)? {
        let bytes = name.utf8
        guard bytes.starts(with: head.utf8) else { return nil }
        var index = bytes.index(bytes.startIndex, offsetBy: head.utf8.count)
        var length = 0
        var digits = 0
        while index != bytes.endIndex, let digit = bytes[index].wholeDecimalDigit, digits < 7 {
            length = length * 10 + digit
            digits += 1
            index = bytes.index(after: index)
        }
        guard digits > 0, index != bytes.endIndex, bytes[index] == UInt8(ascii: ":") else { return nil }
        let keyStart = bytes.index(after: index)
        guard let keyEnd = bytes.index(keyStart, offsetBy: length, limitedBy: bytes.endIndex), keyEnd != bytes.endIndex,
              bytes[keyEnd] == UInt8(ascii: ":") else { return nil }
        return (String(decoding: bytes[keyStart..<keyEnd], as: UTF8.self),
                String(decoding: bytes[bytes.index(after: keyEnd)...], as: UTF8.self))
    }
}

extension UInt8 {
    fileprivate var wholeDecimalDigit: Int? {
        (0x30...0x39).contains(self) ? Int(self - 0x30) : nil
    }
}
