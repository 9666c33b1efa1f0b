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
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `byte` is written escaped inside a JSON string.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// `value` as a quoted, escaped JSON string.
    public static func string(_ value: String) -> String {
        var out: [UInt8] = []
        appendString(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
