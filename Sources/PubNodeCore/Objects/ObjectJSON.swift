/// A JSON value as App Context bodies carry it: the node reads small request bodies into this
/// form (numbers keep their text, so nothing is rounded) and renders stored values back from it.
public indirect enum ObjectJSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([ObjectJSON])
    /// An object (a repeated name keeps its last value).
    case object([String: ObjectJSON])

    /// The deepest nesting a body may have.
    public static let maxDepth = 16
    /// The most values one body may hold.
    public static let maxElements = 10_000

    /// Parses one JSON text (valid UTF-8, bounded in depth and values); nil when it is not one.
    public static func parse(_ bytes: [UInt8]) -> ObjectJSON? {
        let validator = JSONValidator(maxDepth: maxDepth, maxNumberLength: 100, maxElements: maxElements)
        guard validator.isValidUTF8JSON(bytes) else { return nil }
        var reader = Reader(bytes: bytes)
        return reader.value()
    }

    /// The member `name` of an object, nil for anything else.
    public subscript(name: String) -> ObjectJSON? {
        if case .object(let members) = self { return members[name] }
        return nil
    }

    /// Appends the JSON text of this value (object members sorted by name) to `out`.
    public func render(into out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let text): out += Array(text.utf8)
        case .string(let text): JSONText.appendString(text, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.render(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, name) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(name, to: &out)
                out.append(UInt8(ascii: ":"))
                members[name]!.render(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The JSON text of this value.
    public var text: String {
        var out: [UInt8] = []
        render(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Reads a text `JSONValidator` accepted: no error paths beyond that.
private struct Reader {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func value() -> ObjectJSON {
        skipSpace()
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [String: ObjectJSON] = [:]
            skipSpace()
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                let name = string()
                skipSpace()
                index += 1 // ':'
                members[name] = value()
                skipSpace()
                let separator = bytes[index]
                index += 1
                if separator == UInt8(ascii: "}") { return .object(members) }
            }
        case UInt8(ascii: "["):
            index += 1
            var items: [ObjectJSON] = []
            skipSpace()
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                items.append(value())
                skipSpace()
                let separator = bytes[index]
                index += 1
                if separator == UInt8(ascii: "]") { return .array(items) }
            }
        case UInt8(ascii: "\""):
            return .string(string())
        case UInt8(ascii: "t"): index += 4; return .bool(true)
        case UInt8(ascii: "f"): index += 5; return .bool(false)
        case UInt8(ascii: "n"): index += 4; return .null
        default:
            let start = index
            while index < bytes.count, !Self.ends(bytes[index]) { index += 1 }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }
    }

    private mutating func string() -> String {
        let start = index + 1
        index = start
        while bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        let body = bytes[start..<index]
        index += 1
        return PresenceState.decodeString(body)
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private static func ends(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(byte)
    }
}
