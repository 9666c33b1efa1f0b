/// A PubNub v3 access token.
///
/// The wire form is a CBOR map (see ``encoded()``), base64url-encoded with `=` padding.
public struct AccessToken: Sendable, Equatable {
    /// Permissions per resource name (or per pattern), by resource kind.
    public struct Grants: Sendable, Equatable {
        /// Channels (`chan`).
        public var channels: [String: AccessPermissions]
        /// Channel groups (`grp`).
        public var groups: [String: AccessPermissions]
        /// User ids (`uuid`).
        public var uuids: [String: AccessPermissions]

        /// Creates a set of grants; every kind defaults to none.
        public init(
            channels: [String: AccessPermissions] = [:],
            groups: [String: AccessPermissions] = [:],
            uuids: [String: AccessPermissions] = [:]
        ) {
            self.channels = channels
            self.groups = groups
            self.uuids = uuids
        }

        /// Whether no kind grants anything.
        public var isEmpty: Bool { channels.isEmpty && groups.isEmpty && uuids.isEmpty }
    }

    /// The token format version (`v`); always 2.
    public var version: Int
    /// When the token was issued, unix seconds (`t`).
    public var issued: UInt64
    /// Lifetime in minutes (`ttl`).
    public var ttlMinutes: Int
    /// Grants on exact resource names (`res`).
    public var resources: Grants
    /// Grants on resource-name patterns, regular expressions (`pat`).
    public var patterns: Grants
    /// Free-form metadata (`meta`), a CBOR map.
    public var meta: CBORValue
    /// The only user id allowed to use the token (`uuid`), if restricted.
    public var authorizedUUID: String?
    /// HMAC-SHA256 over the rest of the token (`sig`); empty while unsigned.
    public var signature: [UInt8]

    /// Creates an unsigned version-2 token (empty ``signature``); see ``signed(secret:)``.
    public init(
        issued: UInt64,
        ttlMinutes: Int,
        resources: Grants = Grants(),
        patterns: Grants = Grants(),
        meta: CBORValue = .map([]),
        authorizedUUID: String? = nil
    ) {
        self.version = 2
        self.issued = issued
        self.ttlMinutes = ttlMinutes
        self.resources = resources
        self.patterns = patterns
        self.meta = meta
        self.authorizedUUID = authorizedUUID
        self.signature = []
    }

    /// When the token stops being valid, unix seconds: `issued + ttlMinutes × 60`.
    ///
    /// A negative ``ttlMinutes`` counts as zero; the sum saturates instead of overflowing.
    public var expiresAt: UInt64 {
        let (seconds, overflowA) = UInt64(max(ttlMinutes, 0)).multipliedReportingOverflow(by: 60)
        let (sum, overflowB) = issued.addingReportingOverflow(seconds)
        return overflowA || overflowB ? .max : sum
    }

    /// Whether the token has expired at `now` (unix seconds).
    public func isExpired(now: UInt64) -> Bool {
        now >= expiresAt
    }
}

/// Why a text is not a usable access token.
public enum AccessTokenError: Error, Sendable, Equatable {
    /// Longer than ``AccessToken/maxTextLength`` bytes.
    case tooLong
    /// Not base64 / base64url (bad character or padding), or empty.
    case invalidBase64
    /// The bytes are not one well-formed CBOR item within the decoder's bounds.
    case invalidCBOR(CBORError)
    /// The top-level item is not a map.
    case notAMap
    /// A required entry (`v`, `t`, `ttl`, `res`, `pat`, `meta`, `sig`) is absent.
    case missingField(String)
    /// An entry has the wrong type or an out-of-range value.
    case invalidField(String)
    /// The same key appears twice in the named map (`token`, `res`, `pat`, `res.chan`…).
    case duplicateKey(String)
    /// The version is not 2.
    case unsupportedVersion(UInt64)
}
