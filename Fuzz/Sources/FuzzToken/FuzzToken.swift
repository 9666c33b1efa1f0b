import FuzzSupport
import PubNodeAccessWire

/// v3 access tokens (`auth=`): `AccessToken.decode` never traps, whether the input is token text or,
/// after a leading zero byte, CBOR bytes that the target wraps in base64; a decoded token
/// re-encodes to text that decodes and re-encodes identically; signing and expiry never trap; and
/// its pattern grants compile or are refused without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let text = bytes.first == 0 ? base64(Array(bytes.dropFirst())) : String(decoding: bytes, as: UTF8.self)
    guard let token = try? AccessToken.decode(text) else { return 0 }

    let encoded = token.encoded()
    if encoded.utf8.count <= AccessToken.maxTextLength {
        guard let again = try? AccessToken.decode(encoded) else {
            fatalError("property violated: re-encoded token does not decode: \(encoded)")
        }
        require(again.encoded() == encoded, "token encoding not stable: \(encoded)")
    }
    require(token.signed(secret: "secret").isSigned(by: "secret"), "signed token does not verify")
    _ = token.isExpired(now: 1_700_000_000)
    for name in Array(token.patterns.channels.keys.prefix(8)) + Array(token.patterns.uuids.keys.prefix(8)) {
        if let pattern = try? ResourcePattern(name) {
            _ = pattern.matches(name)
        }
    }
    return 0
}
