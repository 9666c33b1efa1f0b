import Crypto
import PubNodeCore

/// Signs webhook bodies so receivers can check they came from this node and were not altered.
///
/// The signature is HMAC-SHA256 over the exact body bytes with the hook's secret, sent as
/// `X-PubNode-Signature: sha256=<lowercase hex>`.
public enum WebhookSignature {
    /// The header carrying the signature.
    public static let header = "X-PubNode-Signature"

    /// The header value for `body` signed with `secret`.
    public static func sign(_ body: [UInt8], secret: String) -> String {
        let key = SymmetricKey(data: Array(secret.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: key)
        return "sha256=" + Hex.encode(mac)
    }

    /// True when `signature` (a header value) matches `body` and `secret`, compared in constant time.
    public static func verify(_ body: [UInt8], secret: String, signature: String) -> Bool {
        let expected = Array(sign(body, secret: secret).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(expected, given) { difference |= a ^ b }
        return difference == 0
    }
}
