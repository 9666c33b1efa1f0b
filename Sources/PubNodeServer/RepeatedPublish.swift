import NIOCore
import PubNodeCore

/// A connection's last publish, prepared, kept so that its next publish decodes only its message.
///
/// A publisher's requests usually differ only in their message: the same keys, channel, callback
/// and query come back each time. When a new target is the kept one with another message segment,
/// the kept `PreparedPublish` is used with the new message instead of decoding the keys, channel
/// and query again and validating the names (which depend on the request and constant rules
/// alone). The rest still runs per publish: `Node.begin(_:payload:)` authorizes (a revoked token
/// is refused on the next publish) on the keyset the publish key was accepted on while that is
/// served (else it looks the keyset up and checks the key again), validates the message and its
/// size, and looks for before hooks.
///
/// Only targets `PublishTarget` reads are kept (so never a signed one), and a new target is read
/// this way only when `PublishTarget` would read it the same: its message segment holds no `/`
/// or `?` (so the segments and the query are the kept ones) and decodes.
///
///
/// The request is prepared on the first repeat, not when kept: a connection that publishes once
/// pays nothing for it. One whose names do not validate is never read this way.
///
/// A class: the connection's state holds one reference, read for each publish with one retain.
/// It changes only on the connection's event loop.
final class RepeatedPublish {
    /// The target as received, with the byte offsets of its message segment.
    let kept: KeptTarget
    /// Where preparing stands: the decoded request until the first repeat prepares it.
    private var stage: Stage

    private enum Stage {
        case decoded(PublishRequest)
        case prepared(PreparedPublish)
    }

    /// Keeps `request`, read from `target` with its message segment at `message` (its message is not kept).
    init(target: String, message: Range<Int>, request: PublishRequest) {
        self.kept = KeptTarget(target: target, value: message)
        var request = request
        request.payload = []
        self.stage = .decoded(request)
    }

    /// The prepared request, once a repeat has prepared it.
    var prepared: PreparedPublish? {
        if case .prepared(let prepared) = stage { return prepared }
        return nil
    }

    /// The kept request prepared by `node` (at the first call), and the decoded message of
    /// `target`, when `target` is the kept one with only its message segment changed; nil
    /// otherwise (the connection then reads the target the general way).
    func repeated(by target: ByteBuffer, node: Node) -> (prepared: PreparedPublish, payload: [UInt8])? {
        guard let payload = payload(repeatedBy: target) else { return nil }
        switch stage {
        case .prepared(let prepared):
            return (prepared, payload)
        case .decoded(let request):
            // Names that do not validate: every repeat goes the general way, refusals included
            // (the connection then keeps that target afresh, so no refused state is kept here).
            guard let prepared = try? node.prepare(request) else { return nil }
            stage = .prepared(prepared)
            return (prepared, payload)
        }
    }

    /// The decoded message of `target` when `target` is the kept one with only its message segment
    /// changed: a segment without `/` or `?` (so the other segments and the query are the kept
    /// ones) that decodes; nil otherwise.
    func payload(repeatedBy target: ByteBuffer) -> [UInt8]? {
        kept.changedValue(in: target) { segment in
            guard !segment.contains(UInt8(ascii: "/")), !segment.contains(UInt8(ascii: "?")) else { return nil }
            return PercentDecoding.decodeBytes(UnsafeRawBufferPointer(segment))
        }
    }
}
