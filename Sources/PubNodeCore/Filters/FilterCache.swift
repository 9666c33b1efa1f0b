import Synchronization

/// Compiled expressions by mode and text, so many subscribers with the same filter compile it once.
///
/// Bounded: at most `capacity` entries in all; when full, the oldest entry is evicted (first in,
/// first out). Refusals are not cached (compiling a refused text is cheap and bounded).
public final class FilterCache: Sendable {
    private struct Key: Hashable {
        var objects: Bool
        var text: String
    }

    private struct Entries {
        var filters: [Key: CompiledFilter] = [:]
        var order: [Key] = []
        var oldest = 0
    }

    /// The most expressions kept.
    public let capacity: Int
    private let entries = Mutex(Entries())

    /// Creates an empty cache.
    public init(capacity: Int = 1_024) {
        self.capacity = max(1, capacity)
    }

    /// The compiled form of `text`, compiled now if it is not cached.
    public func compile(_ text: String, mode: FilterMode) throws(FilterError) -> CompiledFilter {
        let key = Key(objects: mode == .objects, text: text)
        if let cached = entries.withLock({ $0.filters[key] }) { return cached }
        let compiled = try FilterExpression.compile(text, mode: mode)
        let capacity = capacity
        entries.withLock { entries in
            guard entries.filters[key] == nil else { return }
            if entries.order.count < capacity {
                entries.order.append(key)
            } else {
                entries.filters[entries.order[entries.oldest]] = nil
                entries.order[entries.oldest] = key
                entries.oldest = (entries.oldest + 1) % capacity
            }
            entries.filters[key] = compiled
        }
        return compiled
    }

    /// How many expressions are cached for `mode`.
    public func count(_ mode: FilterMode) -> Int {
        entries.withLock { $0.filters.keys.count { $0.objects == (mode == .objects) } }
    }
}
