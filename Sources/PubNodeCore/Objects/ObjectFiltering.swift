/// Where App Context's `filter=` is applied: each item rendered as it is served, asked whether it
/// matches. The language is the subscribe filters' grammar in `.objects` mode (paths read the
/// served object from its root: `name`, `custom.team`, `channel.name`, `updated`, …), compiled once
/// per distinct text through the node's `FilterCache`.
enum ObjectFiltering {
    /// The items `filter` keeps; a malformed filter is a 400 that says why.
    static func apply<Item>(_ filter: String?, to items: [Item], cache: FilterCache,
                            render: (Item) -> ObjectJSON) throws(PubNodeError) -> [Item] {
        guard let filter else { return items }
        let compiled: CompiledFilter
        do {
            compiled = try cache.compile(filter, mode: .objects)
        } catch {
            throw .invalidParameter("Invalid filter: \(error.reason)")
        }
        return items.filter { compiled.matches(render($0).filterValue) }
    }
}

extension ObjectJSON {
    /// The value as a filter expression reads it (numbers as `Double`).
    var filterValue: FilterValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let text): Double(text).map(FilterValue.number) ?? .null
        case .string(let text): .string(text)
        case .array(let values): .array(values.map(\.filterValue))
        case .object(let members): .object(members.mapValues(\.filterValue))
        }
    }
}
