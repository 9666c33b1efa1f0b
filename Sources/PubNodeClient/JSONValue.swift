import Foundation

/// Any JSON value: what the node relays as message payloads, `meta`, presence state and answers.
///
/// Integers are kept as `Int64` so 17-digit timetokens and large numbers survive a round trip.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integral number.
    case int(Int64)
    /// A non-integral number (or one outside `Int64`).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Parses JSON text.
    public init(jsonData: Data) throws(PubNodeClientError) {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: jsonData)
        } catch {
            throw .decoding("not JSON: \(error)")
        }
    }

    /// Converts any `Encodable` value to a `JSONValue`.
    public init(encoding value: some Encodable) throws(PubNodeClientError) {
        try self.init(jsonData: try JSONValue.encode(value))
    }

    /// The value as compact JSON text.
    public var jsonData: Data { (try? JSONValue.encode(self)) ?? Data("null".utf8) }

    /// The value as compact JSON text.
    public var jsonString: String { String(decoding: jsonData, as: UTF8.self) }

    /// Decodes the value into `type` (through its JSON text).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(PubNodeClientError) -> T {
        if let same = self as? T { return same }
        do {
            return try JSONDecoder().decode(T.self, from: jsonData)
        } catch {
            throw .decoding("cannot decode \(T.self): \(error)")
        }
    }

    /// The member named `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil`.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The flag, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The string, or `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// An integer (or the integer a string holds), or `nil`.
    public var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .string(let value): return Int64(value)
        case .double(let value) where value.rounded() == value: return Int64(exactly: value)
        default: return nil
        }
    }

    /// The array's elements, or `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object's members, or `nil`.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Compact JSON text of any `Encodable` value (fragments allowed, keys sorted for stable output).
    static func encode(_ value: some Encodable) throws(PubNodeClientError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw .encoding("cannot encode \(type(of: value)): \(error)")
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `nil` as JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}
