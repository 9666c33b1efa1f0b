import PubNodeAccessWire

/// A grant (`POST /v3/pam/{sub}/grant`) or revoke (`DELETE /v3/pam/{sub}/grant/{token}`).
public struct TokenRequest: Sendable {
    /// The keyset.
    public var subscribeKey: String
    /// The grant's JSON body, or the token to revoke.
    public var content: [UInt8]
    /// The caller's uuid.
    public var uuid: String?
    /// The request as signed (both need a valid signature).
    public var signature: SignedRequest?

    /// Describes a grant or revoke.
    public init(subscribeKey: String, content: [UInt8], uuid: String? = nil, signature: SignedRequest? = nil) {
        self.subscribeKey = subscribeKey
        self.content = content
        self.uuid = uuid
        self.signature = signature
    }
}

extension Node {
    /// Issues an Access Manager token: the body's grants, signed with the keyset's secret, in
    /// PubNub's CBOR layout (base64url with padding).
    public func grantToken(_ request: TokenRequest) throws(PubNodeError) -> String {
        let keyset = try authorize(AccessRequest(.grantToken, subscribeKey: request.subscribeKey, uuid: request.uuid,
                                                 signature: request.signature))
        let token = try TokenGrant.parse(request.content, now: access.now)
        guard let key = keyset.tokenKey else { throw .accessRefused("The keyset has no secret key") }
        return token.signed(secret: key).encoded()
    }

    /// Revokes a token this keyset issued: it is refused from now on, here and after a restart,
    /// until it would have expired anyway.
    /// The store records it on the node's read queue (never on an event loop) before it is refused.
    public func revokeToken(_ request: TokenRequest) async throws(PubNodeError) {
        let keyset = try authorize(AccessRequest(.revokeToken, subscribeKey: request.subscribeKey, uuid: request.uuid,
                                                 signature: request.signature))
        let text = String(decoding: request.content, as: UTF8.self)
        guard let token = try? AccessToken.decode(text), let key = keyset.tokenKey, token.isSigned(by: key) else {
            throw .accessInvalid(message: "Invalid token", source: "revoke", detail: "Token is malformed or was not issued by this keyset.",
                                 location: "token", locationType: "path")
        }
        guard token.expiresAt > access.now else {
            throw .accessInvalid(message: "Invalid token", source: "revoke", detail: "Token is expired.",
                                 location: "token", locationType: "path")
        }
        let revocation = AccessControl.revocation(token, keyset: keyset), store = access.store
        try await objectWork { () throws(PubNodeError) in
            do throws(AccessStoreError) { try store.revoke(revocation) } catch {
                throw .storageFailed("cannot record the revocation: \(error.description)")
            }
        }
        access.apply([revocation])
    }
}
