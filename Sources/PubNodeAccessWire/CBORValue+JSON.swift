extension CBORValue {
    /// Converts JSON text to CBOR: objects become maps with text keys (in document order), integers
    /// become ``unsigned(_:)``/``negative(_:)`` (or ``double(_:)`` when out of range), other numbers
    /// ``double(_:)``. Bounded like ``decode(_:)`` (nesting and item count).
    public init(json: [UInt8]) throws(CBORError) {
        var parser = JSONToCBORParser(bytes: json)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.offset == json.count else { throw .invalidJSON(offset: parser.offset) }
        self = value
    }

    /// Renders this item as JSON text.
    ///
    /// Byte strings become standard base64 text. Map keys that are not text become strings: byte
    /// keys as their UTF-8 text when valid (else base64), other keys as their JSON text.
    /// Non-finite doubles become `null`.
    public func jsonText() -> String {
        var out = ""
        writeJSON(into: &out)
        return out
    }

    func writeJSON(into out: inout String) {
        switch self {
        case .unsigned(let value): out += String(value)
        case .negative(let value): out += String(value)
        case .bytes(let bytes): Self.writeJSONString(Base64.encode(bytes, urlSafe: false, padded: true), into: &out)
        case .text(let text): Self.writeJSONString(text, into: &out)
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .double(let value): out += value.isFinite ? String(describing: value) : "null"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.writeJSON(into: &out)
            }
            out += "]"
        case .map(let pairs):
            out += "{"
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.writeJSONString(pair.key.jsonKey, into: &out)
                out += ":"
                pair.value.writeJSON(into: &out)
            }
            out += "}"
        }
    }

    /// The string used when this item is a JSON object key.
    var jsonKey: String {
        switch self {
        case .text(let text): return text
        case .bytes(let bytes):
            return String(validating: bytes, as: UTF8.self) ?? Base64.encode(bytes, urlSafe: false, padded: true)
        default: return jsonText()
        }
    }

    static func writeJSONString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
