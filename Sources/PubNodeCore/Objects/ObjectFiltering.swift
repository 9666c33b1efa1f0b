/// Where App Context's `filter=` is applied: each item rendered as it is served, asked whether it
/// matches. The filter language is the subscribe filters' grammar, which the node does not
/// evaluate yet: until it does, the parameter is decoded and validated for length only, and
/// every item is kept (documented in `Docs/protocol.md`).
enum ObjectFiltering {
    /// The longest filter expression accepted.
    static let maxLength = 2048

    /// The items `filter` keeps.
    static func apply<Item>(_ filter: String?, to items: [Item], render: (Item) -> ObjectJSON) throws(PubNodeError) -> [Item] {
        guard let filter else { return items }
        guard filter.utf8.count <= maxLength else { throw .invalidParameter("filter is longer than \(maxLength) bytes") }
        return items
    }
}
