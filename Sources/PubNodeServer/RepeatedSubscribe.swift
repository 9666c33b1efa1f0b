import NIOCore
import PubNodeCore

/// A connection's last subscribe, decoded, kept so that its next long-poll can skip decoding.
///
/// A subscriber's polls differ only in their cursor (`tt`): the same keyset, channels, groups,
/// uuid, heartbeat, state, token and filter come back each time. When a new request's target is
/// the kept one with another `tt` value, the kept `PreparedSubscribe` is used with the new cursor
/// instead of splitting, percent-decoding, routing and validating the names again (they depend on
/// the request and the node's constant limits alone). The rest still runs per poll:
/// `Node.subscribe(_:cursor:presence:)` looks up the keyset, authorizes (a revoked token is
/// refused on the next poll), compiles the filter (from its cache) and refreshes presence unless
/// `presence` shows the refresh would change nothing. A poll that can park the last one's parked
/// poll again (`poll`) goes through `Node.subscribe(_:cursor:presence:repeating:)` instead, which
/// authorizes and refreshes presence the same way but keeps the last long-poll's filter, compiled
/// from the same text, and its keyset and channel state while they are live (no lookup by name).
///
/// Only targets read without ambiguity are kept: exactly one `tt` parameter, written in plain
/// digits, and no percent-escape in any parameter name (so no other name can decode to `tt`).
/// Signed requests are never kept (their signature and timestamp change on every poll).
///
/// A class: the connection's state holds one reference, so reading it for each poll costs one
/// retain rather than a copy of every string it keeps. Only `presence`, `poll` and `prefetch` change,
/// and only on the connection's event loop.
final class RepeatedSubscribe {
    /// The target as received, with the byte offsets of its `tt` value.
    let kept: KeptTarget
    /// The decoded request, its names validated (each poll passes its own cursor beside it).
    let prepared: PreparedSubscribe
    /// What the last poll's presence refresh left, so that a poll soon after skips refreshing the
    /// same presence again (`PresenceReceipt`).
    var presence: PresenceReceipt?
    /// The parked poll the last long-poll of `prepared` used. The next one parks it again, from its
    /// own cursor, when nothing else holds it any longer and its long-poll still serves
    /// (`Node.subscribe(_:cursor:presence:repeating:)`): no long-poll or parked poll is built,
    /// and nothing of them retained and released, for a subscriber's every poll. It refers back to
    /// the connection's handler, which lets go of it when the connection goes.
    var poll: ParkedPoll?
    /// Where this kept subscribe's objects are, for a prefetch as the next poll's bytes arrive
    /// (`PubNodeHTTPHandler.noteRepeatedReads()`): measured once, at its first park (empty before).
    var prefetch = PrefetchList()

    /// Keeps `prepared`, decoded from `target`, when the target qualifies; nil otherwise.
    init?(target: String, prepared: PreparedSubscribe) {
        guard prepared.request.signature == nil, let found = Self.cursor(in: target) else { return nil }
        self.kept = KeptTarget(target: target, value: found.value)
        self.prepared = prepared
    }

    /// The cursor of `target` when `target` is the kept one with only its `tt` value changed (and
    /// that value is a plain timetoken); nil otherwise. The connection then subscribes with the
    /// kept `prepared` and this cursor, without copying or validating the request again.
    ///
    /// The kept target was read whole when it was kept; a new one that has the same bytes before
    /// and after the value, and only digits between, reads exactly the same (the same parameters,
    /// one `tt`, no escaped name), so only those three parts are compared.
    func cursor(repeatedBy target: ByteBuffer) -> Timetoken? {
        kept.changedValue(in: target) { digits in digits.isEmpty ? nil : Timetoken(decimalDigits: digits) }
    }

    /// The one `tt` in `target`'s query: its value's byte range and the timetoken it reads; nil
    /// when there is no `tt`, more than one, a percent-escape in a parameter name, or a value that
    /// is not plain digits.
    static func cursor(in target: String) -> (value: Range<Int>, timetoken: Timetoken)? {
        var target = target
        return target.withUTF8 { cursor(in: $0) }
    }

    private static func cursor(in bytes: UnsafeBufferPointer<UInt8>) -> (value: Range<Int>, timetoken: Timetoken)? {
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        var found: Range<Int>?
        var start = question + 1
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            let pair = bytes[start..<end]
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? end
            if pair[..<equals].contains(UInt8(ascii: "%")) { return nil }
            if equals - start == 2, bytes[start] == UInt8(ascii: "t"), bytes[start + 1] == UInt8(ascii: "t") {
                guard found == nil, equals < end else { return nil }
                found = (equals + 1)..<end
            }
            start = end + 1
        }
        guard let found, let timetoken = Timetoken(decimalDigits: bytes[found]) else { return nil }
        return (found, timetoken)
    }
}
