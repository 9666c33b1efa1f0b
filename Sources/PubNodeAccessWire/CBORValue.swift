/// CBOR data item (RFC 8949 subset: unsigned/negative ints, byte and text strings, arrays, maps, bool, null, floats).
///
/// Tags, `undefined`, other simple values and indefinite lengths are outside the subset:
/// ``decode(_:)`` rejects them with a ``CBORError``.
public indirect enum CBORValue: Sendable, Equatable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: a negative integer, stored as its actual (negative) value, e.g. `-1`.
    ///
    /// CBOR can carry negatives down to -2^64; those below `Int64.min` are rejected when decoding.
    /// A non-negative value placed here is encoded as an unsigned integer.
    case negative(Int64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array of data items.
    case array([CBORValue])
    /// Major type 5: a map, its entries kept in wire order (duplicates are not merged).
    case map([CBORPair])
    /// Simple values `false` (0xf4) and `true` (0xf5).
    case bool(Bool)
    /// Simple value `null` (0xf6).
    case null
    /// A floating-point number (decoded from half, single or double precision; encoded as double).
    case double(Double)
}

/// One key/value entry of a CBOR map.
public struct CBORPair: Sendable, Equatable {
    /// The entry's key (any data item; text or byte strings in practice).
    public var key: CBORValue
    /// The entry's value.
    public var value: CBORValue

    /// Creates a map entry.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}

/// Why a byte sequence (or JSON text) could not be turned into a ``CBORValue``.
public enum CBORError: Error, Sendable, Equatable {
    /// The input ended in the middle of a data item, or a length points past its end.
    case truncated
    /// Bytes remain after the single top-level data item.
    case trailingBytes
    /// An indefinite-length string, array or map (not accepted).
    case indefiniteLength
    /// Arrays and maps nest deeper than ``CBORValue/maxDepth``.
    case nestingTooDeep
    /// More than ``CBORValue/maxItems`` data items in total.
    case tooManyItems
    /// A text string is not valid UTF-8.
    case invalidUTF8
    /// An initial byte outside the supported subset (tags, reserved or unassigned simple values).
    case unsupported(UInt8)
    /// A negative integer below `Int64.min`.
    case integerOutOfRange
    /// The JSON text is malformed at this byte offset.
    case invalidJSON(offset: Int)
}

extension CBORValue {
    /// The deepest nesting of arrays and maps that ``decode(_:)`` and ``init(json:)`` accept.
    public static let maxDepth = 16
    /// The most data items (counting every nested item and map key) that ``decode(_:)`` and ``init(json:)`` accept.
    public static let maxItems = 4096

    /// The entries of a map, or `nil` for any other item.
    public var mapEntries: [CBORPair]? {
        if case .map(let pairs) = self { return pairs }
        return nil
    }

    /// The value stored under a text-string key of a map (the first such entry), or `nil`.
    public subscript(key: String) -> CBORValue? {
        guard case .map(let pairs) = self else { return nil }
        for pair in pairs {
            if case .text(let text) = pair.key, text == key { return pair.value }
        }
        return nil
    }
}
