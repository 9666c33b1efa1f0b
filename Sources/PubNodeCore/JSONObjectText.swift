/// Reading the few JSON objects the node receives from outside without a general decoder: the
/// members of an object as raw value text, and string values decoded.
public enum JSONObjectText {
    /// The members of `bytes` when it is one valid JSON object: name → the value's raw text.
    /// Later duplicates win. Nil when `bytes` is not a JSON object.
    public static func members(_ bytes: [UInt8]) -> [String: ArraySlice<UInt8>]? {
        guard String(validating: bytes, as: UTF8.self) != nil, JSONValidator().isValid(bytes) else { return nil }
        let text = PresenceState.trim(bytes[...])
        guard text.first == UInt8(ascii: "{") else { return nil }
        var result: [String: ArraySlice<UInt8>] = [:]
        for (name, value) in PresenceState.members(of: text) { result[name] = value }
        return result
    }

    /// The decoded string when `raw` is a JSON string's text, else nil.
    public static func string(_ raw: ArraySlice<UInt8>?) -> String? {
        guard let raw, raw.count >= 2, raw.first == UInt8(ascii: "\""), raw.last == UInt8(ascii: "\"") else { return nil }
        return PresenceState.decodeString(raw.dropFirst().dropLast())
    }

    /// The integer when `raw` is a JSON integer's text, else nil.
    public static func integer(_ raw: ArraySlice<UInt8>?) -> Int? {
        raw.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
    }

    /// True when `raw` is the JSON literal `null` (or absent).
    public static func isNull(_ raw: ArraySlice<UInt8>?) -> Bool {
        guard let raw else { return true }
        return raw.elementsEqual("null".utf8)
    }
}
