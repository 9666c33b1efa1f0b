import FuzzSupport
import PubNodeCore

/// Presence state (`state=` of set-state, subscribe and heartbeat): `PresenceState.object` and
/// `.keyed` never trap; what they accept is valid JSON, and every kept value is one JSON object
/// within the limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let limit = 1 + Int(bytes.first ?? 0) * 8
    let validator = JSONValidator()

    let objectResult = Result { () throws(PubNodeError) -> [UInt8]? in try PresenceState.object(bytes, limit: limit) }
    if case .success(let kept) = objectResult {
        require(validator.isValid(bytes), "object accepted invalid JSON")
        if let object = kept {
            require(object.count <= limit, "object longer than the limit")
            require(object.first == UInt8(ascii: "{") && object.last == UInt8(ascii: "}"), "object not an object")
            require(validator.isValid(object), "object text is not JSON")
        }
    }
    if let keyed = try? PresenceState.keyed(bytes, limit: limit) {
        require(validator.isValid(bytes), "keyed accepted invalid JSON")
        for (name, value) in keyed {
            guard let value else { continue }
            require(value.count <= limit, "state for \(name) longer than the limit")
            require(value.first == UInt8(ascii: "{") && validator.isValid(value), "state for \(name) not an object")
        }
    }
    return 0
}
