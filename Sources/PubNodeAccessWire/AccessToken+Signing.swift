import Crypto

extension AccessToken {
    /// Returns a copy whose ``signature`` is HMAC-SHA256 keyed with the UTF-8 `secret`, over the
    /// CBOR encoding of the token map without `sig` (entries in the order v, t, ttl, res, pat, meta, [uuid]).
    public func signed(secret: String) -> AccessToken {
        var copy = self
        copy.signature = signature(secret: secret)
        return copy
    }

    /// Whether ``signature`` is this token's signature under `secret` (compared in constant time).
    public func isSigned(by secret: String) -> Bool {
        constantTimeEqual(signature, signature(secret: secret))
    }

    /// The signature this token would carry under `secret`.
    func signature(secret: String) -> [UInt8] {
        let key = SymmetricKey(data: Array(secret.utf8))
        let content = CBORValue.map(unsignedEntries()).encoded()
        return Array(HMAC<SHA256>.authenticationCode(for: content, using: key))
    }
}
