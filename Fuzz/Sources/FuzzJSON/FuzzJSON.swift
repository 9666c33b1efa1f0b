import Foundation
import FuzzSupport
import PubNodeCore

/// The JSON validator: never traps, `isValidUTF8JSON` implies `isValid`, and it agrees with
/// Foundation's `JSONSerialization` (fragments allowed) on acceptance, except where the two are
/// known to differ by design (see `knownDifference`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let validator = JSONValidator()
    let valid = validator.isValidUTF8JSON(bytes)
    require(!valid || validator.isValid(bytes), "isValidUTF8JSON accepted what isValid refused")
    require(!valid || String(validating: bytes, as: UTF8.self) != nil, "accepted invalid UTF-8")

    let foundation = (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
    if valid != foundation, !knownDifference(bytes, validatorAccepts: valid) {
        fatalError("property violated: validator \(valid), JSONSerialization \(foundation)")
    }
    return 0
}

/// Where the validator and Foundation legitimately disagree.
///
/// Foundation refuses lone or reversed surrogate escapes and numbers beyond Double's range, which the
/// validator (relaying text byte-exact) accepts; Foundation accepts trailing commas, a byte order
/// mark, UTF-16/32 input (detected from zero bytes), nesting deeper than 256 and numbers longer than
/// 1000 characters, which the validator refuses.
func knownDifference(_ bytes: [UInt8], validatorAccepts: Bool) -> Bool {
    if validatorAccepts {
        return hasSurrogateEscape(bytes) || hasLargeNumber(bytes)
    }
    let opens = bytes.filter { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }.count
    return hasTrailingComma(bytes) || bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.contains(0)
        || opens > JSONValidator().maxDepth || bytes.count > JSONValidator().maxNumberLength
}

func hasSurrogateEscape(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 4 else { return false }
    for index in 0..<(bytes.count - 3) where bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] | 0x20 == UInt8(ascii: "u")
        && bytes[index + 2] | 0x20 == UInt8(ascii: "d") {
        let next = bytes[index + 3] | 0x20
        if (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(next) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(next) {
            return true
        }
    }
    return false
}

/// An exponent, or a run of more than 300 digits: possibly outside Double's range.
func hasLargeNumber(_ bytes: [UInt8]) -> Bool {
    var run = 0
    for byte in bytes {
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return true }
        run = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? run + 1 : 0
        if run > 300 { return true }
    }
    return false
}

/// A `,` followed (after white space) by `]` or `}`.
func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
    var afterComma = false
    for byte in bytes {
        switch byte {
        case UInt8(ascii: ","): afterComma = true
        case 0x20, 0x09, 0x0A, 0x0D: continue
        case UInt8(ascii: "]"), UInt8(ascii: "}"): if afterComma { return true }
        default: afterComma = false
        }
    }
    return false
}
