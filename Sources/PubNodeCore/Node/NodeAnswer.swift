/// An operation's answer: ready at once, or (when it needs a store outside the process, such as a
/// cluster's Redis) computed later. A single node answers at once, so its callers never leave the
/// thread they run on.
public enum NodeAnswer<Value: Sendable>: Sendable {
    /// The answer.
    case now(Value)
    /// The work that computes the answer, to run off the caller's thread.
    case later(@Sendable () async throws(PubNodeError) -> Value)

    /// The answer, awaited.
    public func value() async throws(PubNodeError) -> Value {
        switch self {
        case .now(let value): return value
        case .later(let body): return try await body()
        }
    }

    /// The answer transformed by `transform`.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Value) -> Other) -> NodeAnswer<Other> {
        switch self {
        case .now(let value): return .now(transform(value))
        case .later(let body): return .later { () async throws(PubNodeError) in transform(try await body()) }
        }
    }
}
