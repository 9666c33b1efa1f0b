/// A request's query parameters, percent-decoded, in the order received.
///
/// Requests carry a handful of parameters and endpoints look up a few names each, so they are
/// kept as a list and found by comparing names: no hash table is built per request and no name
/// is hashed per lookup. A repeated name reads as its last value, as in a dictionary filled in order.
public struct QueryParameters: Sendable {
    /// The parameters as (name, value), in order.
    public private(set) var pairs: [(name: String, value: String)] = []

    /// No parameters.
    public init() {}

    /// Adds a parameter after the others.
    mutating func append(name: String, value: String) {
        pairs.append((name, value))
    }

    /// The last value given for `name`, nil when absent.
    public subscript(name: String) -> String? {
        for pair in pairs.reversed() where pair.name == name { return pair.value }
        return nil
    }

    /// The parameters as a dictionary (a repeated name keeps its last value).
    public var dictionary: [String: String] {
        Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}
