import Crypto

/// PubNub's request-signature scheme: HMAC-SHA256 over the method (v2) or keys (v1), the path, the
/// sorted and `pamEncode`d query, and (v2) the body.
public enum RequestSignature {
    /// Percent-encodes every UTF-8 byte outside `A-Z a-z 0-9 _ . -` with uppercase hex, exactly
    /// like the Python SDK's `utils.pam_encode` (so space → `%20`, `~` → `%7E`, `+` → `%2B`).
    public static func pamEncode(_ value: String) -> String {
        String(decoding: pamEncode(bytes: value.utf8), as: UTF8.self)
    }

    /// ``pamEncode(_:)`` over raw bytes (which need not be valid UTF-8).
    static func pamEncode(bytes: some Sequence<UInt8>) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            }
        }
        return out
    }

    /// Sorts `pairs` by key (case-sensitive, bytewise) and joins them as `key=pamEncode(value)` with `&`.
    /// Keys are not encoded. Pairs with equal keys keep their relative order.
    public static func canonicalQuery(_ pairs: [(String, String)]) -> String {
        let bytePairs = pairs.map { (Array($0.0.utf8), Array($0.1.utf8)) }
        return String(decoding: canonicalQuery(bytes: bytePairs), as: UTF8.self)
    }

    /// ``canonicalQuery(_:)`` over byte pairs (values need not be valid UTF-8).
    static func canonicalQuery(bytes pairs: [([UInt8], [UInt8])]) -> [UInt8] {
        let order = pairs.indices.sorted { lhs, rhs in
            pairs[lhs].0.lexicographicallyPrecedes(pairs[rhs].0) || (pairs[lhs].0 == pairs[rhs].0 && lhs < rhs)
        }
        var out: [UInt8] = []
        for (position, index) in order.enumerated() {
            if position > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: pairs[index].0)
            out.append(UInt8(ascii: "="))
            out.append(contentsOf: pamEncode(bytes: pairs[index].1))
        }
        return out
    }

    /// The v2 signature: `"v2."` + URL-safe base64 without `=` of
    /// HMAC-SHA256(secret, `METHOD\npublishKey\npath\ncanonicalQuery\n` + body).
    public static func v2(
        secret: String, method: String, publishKey: String, path: String, canonicalQuery: String, body: [UInt8]?
    ) -> String {
        let mac = v2MAC(
            secret: secret, method: Array(method.uppercased().utf8), publishKey: publishKey,
            path: Array(path.utf8), query: Array(canonicalQuery.utf8), body: body)
        return "v2." + Base64.encode(mac, urlSafe: true, padded: false)
    }

    /// The legacy v1 signature (POST publish in the Python SDK): URL-safe base64 with `=` of
    /// HMAC-SHA256(secret, `subscribeKey\npublishKey\npath\ncanonicalQuery`).
    public static func v1(
        secret: String, subscribeKey: String, publishKey: String, path: String, canonicalQuery: String
    ) -> String {
        let mac = v1MAC(
            secret: secret, subscribeKey: subscribeKey, publishKey: publishKey,
            path: Array(path.utf8), query: Array(canonicalQuery.utf8))
        return Base64.encode(mac, urlSafe: true, padded: true)
    }

    static func v2MAC(
        secret: String, method: [UInt8], publishKey: String, path: [UInt8], query: [UInt8], body: [UInt8]?
    ) -> [UInt8] {
        var input = method
        input.append(0x0a)
        input.append(contentsOf: publishKey.utf8)
        input.append(0x0a)
        input.append(contentsOf: path)
        input.append(0x0a)
        input.append(contentsOf: query)
        input.append(0x0a)
        if let body { input.append(contentsOf: body) }
        return hmac(secret: secret, input)
    }

    static func v1MAC(secret: String, subscribeKey: String, publishKey: String, path: [UInt8], query: [UInt8]) -> [UInt8] {
        var input = Array(subscribeKey.utf8)
        input.append(0x0a)
        input.append(contentsOf: publishKey.utf8)
        input.append(0x0a)
        input.append(contentsOf: path)
        input.append(0x0a)
        input.append(contentsOf: query)
        return hmac(secret: secret, input)
    }

    static func hmac(secret: String, _ input: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: Array(secret.utf8))))
    }
}

/// The outcome of ``RequestSignature/verify(method:path:rawQuery:body:publishKey:subscribeKey:secret:now:window:)``.
public enum SignatureCheck: Sendable, Equatable {
    /// The signature matches and the timestamp is within the window.
    case valid
    /// No `signature` or no `timestamp` parameter.
    case missing
    /// The signature does not match (or the query is malformed: duplicate keys, bad timestamp, too long).
    case mismatch
    /// `|timestamp − now|` exceeds the window.
    case stale
}
