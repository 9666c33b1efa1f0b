/// One step of a field path: an object member or an array element.
enum FilterPathStep: Sendable, Equatable {
    case key(String)
    case index(Int)
}

/// A comparison operator.
enum FilterComparison: Sendable {
    case equal, notEqual, greater, less, greaterOrEqual, lessOrEqual
}

/// An arithmetic operator.
enum FilterArithmetic: Sendable {
    case add, subtract, multiply, divide, remainder
}

/// A compiled expression node. Depth is bounded by `FilterExpression.maxDepth` (`&&` and `||`
/// chains are flat lists), so evaluating recursively is safe.
indirect enum FilterNode: Sendable {
    case literal(FilterValue)
    case path([FilterPathStep])
    case not(FilterNode)
    case and([FilterNode])
    case or([FilterNode])
    case compare(FilterComparison, FilterNode, FilterNode)
    case like(FilterNode, FilterLikePattern)
    case contains(FilterNode, FilterNode)
    case arithmetic(FilterArithmetic, FilterNode, FilterNode)
    case negate(FilterNode)
}
