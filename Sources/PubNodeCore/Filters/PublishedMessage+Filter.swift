import Synchronization

/// The document a subscribe filter reads for one message, parsed once.
final class FilterDocument: Sendable {
    let value: FilterValue

    init(value: FilterValue) {
        self.value = value
    }
}

extension PublishedMessage {
    /// The largest `meta` or payload a filter reads, in bytes; a larger one reads as `null`.
    /// The parsed document stays with the message while it is buffered and takes many times its
    /// text's size, so this bounds what filtering can add to a channel's buffer.
    public static let maxFilteredBytes = 4 * 1024

    /// `{"meta": <meta or null>, "data": <payload>}`, parsed on first use and shared by every
    /// subscriber that filters this message (a payload or meta over `maxFilteredBytes`, or that
    /// cannot be parsed within `FilterValue`'s bounds, reads as `null`).
    public var filterDocument: FilterValue {
        if let parsed = filterDocumentCache.load() { return parsed.value }
        let meta = meta.flatMap { $0.count <= Self.maxFilteredBytes ? FilterValue.parse($0) : nil } ?? .null
        let data = payload.count <= Self.maxFilteredBytes ? FilterValue.parse(payload) ?? .null : .null
        let document = FilterDocument(value: .object(["meta": meta, "data": data]))
        return filterDocumentCache.storeIfNil(document).value
    }

    /// Whether `filter` lets this message through: messages and signals are tested, everything
    /// else (presence, App Context and message action events) always passes.
    public func passes(_ filter: CompiledFilter) -> Bool {
        switch kind {
        case .message, .signal: filter.matches(filterDocument)
        case .object, .messageAction, .presence: true
        }
    }
}
