import Synchronization

/// A publish request with everything but its message validated (`Node.prepare(_:)`): what a
/// transport keeps for a connection whose publishes repeat the same keys, channel and parameters
/// with a new message each time. It holds what each publish is authorized as, not a decision:
/// `Node.begin(_:payload:)` authorizes every publish. The keyset its publish key was accepted on
/// is kept while the registry serves it (`ServedKeyset.isServed`), as a long-poll keeps its
/// keyset: looked up by name only when there is none, or it was removed or replaced since. With
/// it, the state of the channel in that keyset's broker (`KeysetBroker.publish(_:keeping:beforeDelivery:)`),
/// which the broker uses while it lives; a state is only ever kept with the keyset it came from.
///
/// A class, immutable but for what it keeps: a transport passes it for each publish at the cost
/// of one retain, where a value would retain every string it holds.
public final class PreparedPublish: Sendable {
    /// The request as decoded; its own payload is not used (each publish gives one).
    public let request: PublishRequest
    /// What each publish is authorized as (write access to the channel): built once, since it
    /// depends on the request alone.
    let access: AccessRequest
    /// The draft each publish hands its broker, but for its payload (empty here): built once, for
    /// the same reason.
    let draft: PublishDraft
    /// The keyset the request's publish key was last accepted on (`Node.publishingKeyset(_:)`),
    /// and the channel's state in its broker. Behind a lock, though a connection's publishes come
    /// one at a time: the type is `Sendable`.
    private let kept = Mutex<Kept?>(nil)

    /// A keyset and, once a publish gave one, its broker's state of the request's channel.
    struct Kept {
        /// The keyset the publish key was accepted on.
        var keyset: ServedKeyset
        /// The channel's state in `keyset`'s broker (nil until a publish through it).
        var channel: ChannelState?
    }

    /// The keyset kept by the last publish, while the registry still serves it, and the channel
    /// state kept with it while the sweeper has not reclaimed it; what is found withdrawn or
    /// reclaimed is let go of (the keyset's hub, limiters and secret; the state's buffer), not held
    /// for the connection's life.
    var served: Kept? {
        kept.withLock { kept in
            guard let found = kept else { return nil }
            guard found.keyset.isServed else {
                kept = nil
                return nil
            }
            if let channel = found.channel, channel.isReclaimed {
                kept?.channel = nil
                return Kept(keyset: found.keyset)
            }
            return found
        }
    }

    /// Keeps `keyset`, where the request's publish key was accepted, with no channel state.
    func keep(_ keyset: ServedKeyset) {
        kept.withLock { $0 = Kept(keyset: keyset) }
    }

    /// Keeps `channel` as the channel's state in `keyset`'s broker, unless another keyset is
    /// kept by now.
    func keep(_ channel: ChannelState?, of keyset: ServedKeyset) {
        kept.withLock { kept in
            guard kept?.keyset === keyset else { return }
            kept?.channel = channel
        }
    }

    init(request: PublishRequest, access: AccessRequest) {
        self.request = request
        self.access = access
        self.draft = Node.draft(request, payload: [])
    }
}

/// A prepared publish's channel state, handed from `Node.begin(_:payload:)` to the accept: the
/// broker publishes through `state`, and a state it used instead is kept by `prepared`.
struct PublishChannel {
    /// The prepared publish that keeps the state.
    let prepared: PreparedPublish
    /// The state it kept with the keyset the publish is accepted on, if any.
    let state: ChannelState?
}

extension Node {
    /// Validates what in a publish does not depend on its message (the channel's name, `meta`,
    /// `ttl`, `custom_message_type`; each against constant rules) and builds its access request:
    /// the same request always prepares the same way. A signed request is not prepared (its
    /// signature covers the message and changes with it).
    public func prepare(_ request: PublishRequest) throws(PubNodeError) -> PreparedPublish {
        guard request.signature == nil else { throw .invalidParameter("a signed publish is verified whole") }
        try validateChannel(request)
        try validateParameters(request)
        return PreparedPublish(request: request, access: Self.publishAccess(request))
    }

    /// What `begin(_:)` does for `prepared`'s request carrying `payload`, with the same answers
    /// and in the same order (the prepared checks passed, so only the message's are left): the
    /// publish is authorized every time, on the keyset its key was accepted on while that is
    /// served (`publishingKeyset(_:)`).
    public func begin(_ prepared: PreparedPublish, payload: [UInt8]) throws(PubNodeError) -> PublishStep {
        let kept = try publishingKeyset(prepared)
        guard validator.isValidUTF8JSON(payload) else { throw .invalidJSON }
        // Read in place with the new payload beside it: copying the request would retain every string.
        try validateSize(prepared.request, payload: payload)
        return hooked(prepared.request, payload: payload, keyset: kept.keyset,
                      channel: PublishChannel(prepared: prepared, state: kept.channel))
    }

    /// `publishingKeyset(_:access:)` for a prepared publish: a keyset it kept, while served, is
    /// authorized on again without a lookup by name or the publish key's check (a keyset's keys
    /// never change: one created again under its subscribe key is another object, and the one
    /// kept is no longer served), and given with the channel state kept with it.
    func publishingKeyset(_ prepared: PreparedPublish) throws(PubNodeError) -> PreparedPublish.Kept {
        if let kept = prepared.served {
            try authorize(prepared.access, on: kept.keyset)
            return kept
        }
        let keyset = try publishingKeyset(prepared.request, access: prepared.access)
        prepared.keep(keyset)
        return PreparedPublish.Kept(keyset: keyset)
    }

    /// What a publish, signal or fire is authorized as: write access to its channel.
    static func publishAccess(_ request: PublishRequest) -> AccessRequest {
        let operation: AccessRequest.Operation = request.kind == .signal ? .signal : (request.isFire ? .fire : .publish)
        return AccessRequest(operation, subscribeKey: request.subscribeKey, publishKey: request.publishKey,
                             resources: [.init(.channel, request.channel, .write)],
                             uuid: request.uuid, authKey: request.authKey, signature: request.signature)
    }
}
