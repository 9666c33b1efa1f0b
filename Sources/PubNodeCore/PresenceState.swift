/// Reading the presence state clients send: a JSON object per uuid and channel, kept as its text.
///
/// State is validated once and then stored and relayed byte-exact (trimmed of surrounding white
/// space), like message payloads. An empty object `{}` means "no state".
public enum PresenceState {
    /// Checks one state object (`set-state`'s `state`): JSON, an object, at most `limit` bytes.
    /// Returns its text, or nil for `{}`.
    public static func object(_ bytes: [UInt8], limit: Int) throws(PubNodeError) -> [UInt8]? {
        guard String(validating: bytes, as: UTF8.self) != nil, JSONValidator().isValid(bytes) else {
            throw .invalidState("state must be a JSON object")
        }
        return try member(trim(bytes[...]), name: nil, limit: limit)
    }

    /// Reads the keyed form subscribe and heartbeat send: `{"<channel or group>": {…}, …}`.
    /// Each value must be an object of at most `limit` bytes; `{}` values map to nil.
    public static func keyed(_ bytes: [UInt8], limit: Int) throws(PubNodeError) -> [String: [UInt8]?] {
        guard String(validating: bytes, as: UTF8.self) != nil, JSONValidator().isValid(bytes) else {
            throw .invalidState("state must be a JSON object keyed by channel name")
        }
        let text = trim(bytes[...])
        guard text.first == UInt8(ascii: "{") else {
            throw .invalidState("state must be a JSON object keyed by channel name")
        }
        var result: [String: [UInt8]?] = [:]
        for (name, value) in members(of: text) {
            result[name] = try member(value, name: name, limit: limit)
        }
        return result
    }

    /// Validates one member value as a state object.
    private static func member(_ value: ArraySlice<UInt8>, name: String?, limit: Int) throws(PubNodeError) -> [UInt8]? {
        let owner = name.map { " for '\($0.count > 64 ? String($0.prefix(64)) + "…" : $0)'" } ?? ""
        guard value.first == UInt8(ascii: "{") else { throw .invalidState("state\(owner) must be a JSON object") }
        guard value.count <= limit else { throw .stateTooLarge(limit: limit) }
        if members(of: value).isEmpty { return nil }
        return Array(value)
    }

    /// The members of a validated JSON object text: decoded names and their values' text.
    static func members(of object: ArraySlice<UInt8>) -> [(String, ArraySlice<UInt8>)] {
        var result: [(String, ArraySlice<UInt8>)] = []
        var index = object.startIndex + 1
        while true {
            index = skipSpace(object, index)
            guard index < object.endIndex, object[index] == UInt8(ascii: "\"") else { return result }
            let nameEnd = stringEnd(object, index)
            let name = decodeString(object[(index + 1)..<(nameEnd - 1)])
            index = skipSpace(object, nameEnd) + 1
            index = skipSpace(object, index)
            let valueStart = index
            var depth = 0
            while index < object.endIndex {
                let byte = object[index]
                if byte == UInt8(ascii: "\"") { index = stringEnd(object, index); continue }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
                if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    if depth == 0 { break }
                    depth -= 1
                }
                if byte == UInt8(ascii: ","), depth == 0 { break }
                index += 1
            }
            result.append((name, trim(object[valueStart..<index])))
            guard index < object.endIndex, object[index] == UInt8(ascii: ",") else { return result }
            index += 1
        }
    }

    /// The index just past the string starting (with its quote) at `start`.
    private static func stringEnd(_ bytes: ArraySlice<UInt8>, _ start: Int) -> Int {
        var index = start + 1
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return index
    }

    /// Decodes the escapes of a validated JSON string body.
    static func decodeString(_ body: ArraySlice<UInt8>) -> String {
        guard body.contains(UInt8(ascii: "\\")) else { return String(decoding: body, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        var index = body.startIndex
        var pendingHigh: UInt32?
        while index < body.endIndex {
            let byte = body[index]
            guard byte == UInt8(ascii: "\\") else { raw.append(byte); index += 1; continue }
            flush()
            let code = body[index + 1]
            index += 2
            var scalar: UInt32
            switch code {
            case UInt8(ascii: "b"): scalar = 8
            case UInt8(ascii: "f"): scalar = 12
            case UInt8(ascii: "n"): scalar = 10
            case UInt8(ascii: "r"): scalar = 13
            case UInt8(ascii: "t"): scalar = 9
            case UInt8(ascii: "u"):
                scalar = UInt32(String(decoding: body[index..<(index + 4)], as: UTF8.self), radix: 16) ?? 0xFFFD
                index += 4
            default: scalar = UInt32(code)
            }
            if (0xD800...0xDBFF).contains(scalar) { pendingHigh = scalar; continue }
            if (0xDC00...0xDFFF).contains(scalar), let high = pendingHigh {
                scalar = 0x10000 + ((high - 0xD800) << 10) + (scalar - 0xDC00)
            }
            pendingHigh = nil
            scalars.append(Unicode.Scalar(scalar) ?? "\u{FFFD}")
        }
        flush()
        return String(scalars)
    }

    private static func skipSpace(_ bytes: ArraySlice<UInt8>, _ start: Int) -> Int {
        var index = start
        while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var slice = bytes
        while let first = slice.first, space.contains(first) { slice.removeFirst() }
        while let last = slice.last, space.contains(last) { slice.removeLast() }
        return slice
    }
}
