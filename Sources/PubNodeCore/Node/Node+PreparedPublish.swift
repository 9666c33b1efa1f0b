/// A publish request with everything but its message validated (`Node.prepare(_:)`): what a
/// transport keeps for a connection whose publishes repeat the same keys, channel and parameters
/// with a new message each time. It holds what each publish is authorized as, not a decision:
/// `Node.begin(_:payload:)` looks up the keyset and authorizes every publish.
///
/// A class, immutable: a transport passes it for each publish at the cost of one retain, where a
/// value would retain every string it holds.
public final class PreparedPublish: Sendable {
    /// The request as decoded; its own payload is not used (each publish gives one).
    public let request: PublishRequest
    /// What each publish is authorized as (write access to the channel): built once, since it
    /// depends on the request alone.
    let access: AccessRequest

    init(request: PublishRequest, access: AccessRequest) {
        self.request = request
        self.access = access
    }
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
    /// keyset is looked up, the publish key checked and the publish authorized every time.
    public func begin(_ prepared: PreparedPublish, payload: [UInt8]) throws(PubNodeError) -> PublishStep {
        let keyset = try publishingKeyset(prepared.request, access: prepared.access)
        guard validator.isValidUTF8JSON(payload) else { throw .invalidJSON }
        // Read in place with the new payload beside it: copying the request would retain every string.
        try validateSize(prepared.request, payload: payload)
        return hooked(prepared.request, payload: payload, keyset: keyset)
    }

    /// What a publish, signal or fire is authorized as: write access to its channel.
    static func publishAccess(_ request: PublishRequest) -> AccessRequest {
        let operation: AccessRequest.Operation = request.kind == .signal ? .signal : (request.isFire ? .fire : .publish)
        return AccessRequest(operation, subscribeKey: request.subscribeKey, publishKey: request.publishKey,
                             resources: [.init(.channel, request.channel, .write)],
                             uuid: request.uuid, authKey: request.authKey, signature: request.signature)
    }
}
