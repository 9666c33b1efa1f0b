import FuzzSupport
import PubNodeAccessWire

/// Token resource patterns (regular expressions from grants): `ResourcePattern(_:)` never traps on
/// any text (the part before the first zero byte) and keeps its program within the limit; matching
/// any name (the rest) never traps; and a pattern made of the name's characters, each escaped,
/// matches the name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (patternBytes, nameBytes) = splitAtZero(fuzzBytes(data, size))
    let source = String(decoding: patternBytes, as: UTF8.self)
    let name = String(decoding: nameBytes, as: UTF8.self)
    if let pattern = try? ResourcePattern(source) {
        require(pattern.cost <= ResourcePattern.maxProgramSize, "program of \(pattern.cost) instructions")
        _ = pattern.matches(name)
        _ = pattern.matches(source)
    }

    let literal = "^" + escaped(name) + "$"
    guard literal.unicodeScalars.count <= ResourcePattern.maxLength else { return 0 }
    let pattern: ResourcePattern
    do {
        pattern = try ResourcePattern(literal)
    } catch {
        fatalError("property violated: escaped literal \(literal.debugDescription) refused: \(error)")
    }
    require(pattern.matches(name), "escaped literal \(literal.debugDescription) does not match its name")
    return 0
}

/// `text` as a pattern matching it literally: letters, digits and non-ASCII as themselves, every
/// other ASCII character escaped with `\` (control characters as a one-character class).
func escaped(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value >= 0x80 || CharacterSetCheck.isAlphanumeric(scalar) {
            out.unicodeScalars.append(scalar)
        } else if scalar.value < 0x20 || scalar.value == 0x7f {
            out += "["
            out.unicodeScalars.append(scalar)
            out += "]"
        } else {
            out += "\\"
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

enum CharacterSetCheck {
    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
