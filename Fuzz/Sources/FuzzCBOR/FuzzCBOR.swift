import FuzzSupport
import PubNodeAccessWire
import PubNodeCore

/// CBOR decoding (token bodies): `CBORValue.decode` never traps; what it accepts re-encodes to bytes
/// that decode again and re-encode to the same bytes; and its JSON rendering is valid JSON that
/// `CBORValue(json:)` reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let value = try? CBORValue.decode(bytes) else { return 0 }
    let encoded = value.encoded()
    guard let again = try? CBORValue.decode(encoded) else {
        fatalError("property violated: re-encoded item does not decode: \(encoded)")
    }
    require(again.encoded() == encoded, "encoding not stable: \(encoded) then \(again.encoded())")

    let json = Array(value.jsonText().utf8)
    require(JSONValidator().isValidUTF8JSON(json), "jsonText is not JSON: \(String(decoding: json, as: UTF8.self))")
    require((try? CBORValue(json: json)) != nil, "jsonText does not read back: \(String(decoding: json, as: UTF8.self))")
    return 0
}
