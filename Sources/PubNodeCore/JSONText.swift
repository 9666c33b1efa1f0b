/// Minimal JSON text writing for the few strings the node renders itself (names, uuids).
public enum JSONText {
    /// Appends `value` as a quoted, escaped JSON string.
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Names and uuids rarely need escaping: then the bytes go in with one copy (from the
        // string's own storage when it is contiguous, as strings read off the wire are).
        let plain: Bool? = value.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain ?? !value.utf8.contains(where: needsEscape) {
            if plain == nil { out.append(contentsOf: value.utf8) }
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 { escape(byte) { out.append($0) } }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `byte` is written escaped inside a JSON string.
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Calls `emit` with each byte `byte` is written as inside a JSON string: `\"`, `\\`, `\n`,
    /// `\r`, `\t`, `\u00XX` (lowercase) for the other control bytes, and the byte itself
    /// otherwise. The one rule for every string the node writes (`EnvelopeWriter` too).
    static func escape(_ byte: UInt8, _ emit: (UInt8) -> Void) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            emit(UInt8(ascii: "\\"))
            emit(byte)
        case 0x0A, 0x0D, 0x09:
            emit(UInt8(ascii: "\\"))
            emit(byte == 0x0A ? UInt8(ascii: "n") : byte == 0x0D ? UInt8(ascii: "r") : UInt8(ascii: "t"))
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            emit(UInt8(ascii: "\\"))
            emit(UInt8(ascii: "u"))
            emit(UInt8(ascii: "0"))
            emit(UInt8(ascii: "0"))
            emit(hex.utf8Start[Int(byte >> 4)])
            emit(hex.utf8Start[Int(byte & 0xF)])
        default:
            emit(byte)
        }
    }

    /// `value` as a quoted, escaped JSON string.
    public static func string(_ value: String) -> String {
        var out: [UInt8] = []
        appendString(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
