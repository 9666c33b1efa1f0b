/// A JSON value as a filter expression sees it: the document a filter is evaluated against and
/// the values its operands produce. Numbers are `Double`s (a filter compares, it never relays).
public indirect enum FilterValue: Sendable, Equatable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([FilterValue])
    /// An object.
    case object([String: FilterValue])
}

extension FilterValue {
    /// The deepest nesting of arrays and objects `parse` accepts.
    public static let maxParseDepth = 64
    /// The largest text `parse` reads, in bytes.
    public static let maxParseBytes = 1 << 20
    /// The most values (strings, numbers, literals, arrays, objects) `parse` builds from one text.
    public static let maxParseElements = 20_000

    /// Parses one JSON text; nil when it is not JSON, or is deeper, longer or has more values than
    /// the bounds above.
    public static func parse<C: Collection<UInt8>>(_ json: C) -> FilterValue? {
        guard json.count <= maxParseBytes else { return nil }
        let read = { (bytes: UnsafeBufferPointer<UInt8>) -> FilterValue? in
            var parser = FilterJSONParser(bytes: bytes)
            return parser.document()
        }
        if let parsed = json.withContiguousStorageIfAvailable(read) { return parsed }
        return ContiguousArray(json).withUnsafeBufferPointer(read)
    }

    /// The member `key` of an object; nil for anything else or a missing key.
    func member(_ key: String) -> FilterValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; nil for anything else or out of range.
    func element(_ index: Int) -> FilterValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}
