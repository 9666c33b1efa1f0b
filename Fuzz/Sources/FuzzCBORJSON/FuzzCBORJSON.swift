import FuzzSupport
import PubNodeAccessWire
import PubNodeCore

/// JSON to CBOR (grant bodies, keyset specs, token meta): `CBORValue(json:)` never traps; it accepts
/// nothing the JSON validator refuses; and render → parse → render is stable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let value = try? CBORValue(json: bytes) else { return 0 }
    if bytes.count <= JSONValidator().maxNumberLength {
        require(JSONValidator().isValidUTF8JSON(bytes), "accepted what the JSON validator refuses")
    }
    let text = value.jsonText()
    guard let again = try? CBORValue(json: Array(text.utf8)) else {
        fatalError("property violated: rendering does not read back: \(text)")
    }
    require(again.jsonText() == text, "rendering not stable: \(text) then \(again.jsonText())")
    require(value.encoded() == (try? CBORValue.decode(value.encoded()))?.encoded(), "CBOR encoding not stable")
    return 0
}
