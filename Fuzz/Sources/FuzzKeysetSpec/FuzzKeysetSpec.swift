import FuzzSupport
import PubNodeCore

/// The tenants API's create body: `KeysetSpec(json:)` never traps, and an accepted non-blank body is
/// valid JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard (try? KeysetSpec(json: bytes)) != nil else { return 0 }
    let blank = bytes.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
    require(blank || JSONValidator().isValidUTF8JSON(bytes), "accepted a body that is not JSON")
    return 0
}
