extension FilterNode {
    /// The node's value in `document`; nil when a path is missing or arithmetic has no finite result.
    ///
    /// `budget` bounds the work of one evaluation: every node costs one unit and every string
    /// `LIKE` or `CONTAINS` scans costs its length. Once it is spent, every remaining node is
    /// nil, so the filter does not match: a hostile expression over large messages cannot hold
    /// an event loop.
    func evaluate(in document: FilterValue, budget: inout Int) -> FilterValue? {
        budget -= 1
        guard budget >= 0 else { return nil }
        switch self {
        case .literal(let value):
            return value
        case .path(let steps):
            var value: FilterValue? = document
            for step in steps {
                switch step {
                case .key(let key): value = value?.member(key)
                case .index(let index): value = value?.element(index)
                }
            }
            return value
        case .not(let operand):
            let value = operand.evaluate(in: document, budget: &budget)
            // A spent budget is no answer, not a false one to negate.
            guard budget >= 0 else { return nil }
            return .bool(value != .bool(true))
        case .and(let terms):
            for term in terms where term.evaluate(in: document, budget: &budget) != .bool(true) { return .bool(false) }
            return .bool(true)
        case .or(let terms):
            for term in terms where term.evaluate(in: document, budget: &budget) == .bool(true) { return .bool(true) }
            return .bool(false)
        case .compare(let comparison, let left, let right):
            let (left, right) = (left.evaluate(in: document, budget: &budget), right.evaluate(in: document, budget: &budget))
            guard budget >= 0 else { return nil }
            guard let left, let right else { return .bool(comparison == .notEqual) }
            return .bool(Self.compare(comparison, left, right))
        case .like(let operand, let pattern):
            guard case .string(let text)? = operand.evaluate(in: document, budget: &budget) else { return .bool(false) }
            budget -= text.utf8.count
            guard budget >= 0 else { return nil }
            return .bool(pattern.matches(text))
        case .contains(let container, let item):
            guard let container = container.evaluate(in: document, budget: &budget),
                  let item = item.evaluate(in: document, budget: &budget) else {
                return .bool(false)
            }
            budget -= Self.scanCost(container) + Self.scanCost(item)
            guard budget >= 0 else { return nil }
            return .bool(Self.contains(container, item))
        case .arithmetic(let operation, let left, let right):
            guard case .number(let a)? = left.evaluate(in: document, budget: &budget), case .number(let b)? = right.evaluate(in: document, budget: &budget) else {
                return nil
            }
            return Self.arithmetic(operation, a, b).map(FilterValue.number)
        case .negate(let operand):
            guard case .number(let value)? = operand.evaluate(in: document, budget: &budget) else { return nil }
            return .number(-value)
        }
    }

    private static func compare(_ comparison: FilterComparison, _ left: FilterValue, _ right: FilterValue) -> Bool {
        switch comparison {
        case .equal: return equal(left, right)
        case .notEqual: return !equal(left, right)
        case .greater, .less, .greaterOrEqual, .lessOrEqual:
            if let a = number(left), let b = number(right) {
                return order(comparison, a, b)
            }
            if case .string(let a) = left, case .string(let b) = right {
                return order(comparison, a, b)
            }
            return false
        }
    }

    private static func order<T: Comparable>(_ comparison: FilterComparison, _ a: T, _ b: T) -> Bool {
        switch comparison {
        case .greater: a > b
        case .less: a < b
        case .greaterOrEqual: a >= b
        case .lessOrEqual: a <= b
        case .equal, .notEqual: false
        }
    }

    /// Equality with PubNub's coercions: a number equals a string spelling it, a boolean equals
    /// `"true"`/`"false"` and 1/0.
    static func equal(_ left: FilterValue, _ right: FilterValue) -> Bool {
        switch (left, right) {
        case (.number(let a), .string), (.string, .number(let a)):
            guard let b = number(left == .number(a) ? right : left) else { return false }
            return a == b
        case (.bool(let a), .string(let b)), (.string(let b), .bool(let a)):
            return b == (a ? "true" : "false")
        case (.bool(let a), .number(let b)), (.number(let b), .bool(let a)):
            return b == (a ? 1 : 0)
        default:
            return left == right
        }
    }

    /// A number, or a short string that spells one.
    private static func number(_ value: FilterValue) -> Double? {
        switch value {
        case .number(let number): return number
        case .string(let text) where text.utf8.count <= 64: return Double(text).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }

    /// What `CONTAINS` may scan of a value: a string's length, an array's element count.
    private static func scanCost(_ value: FilterValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .array(let elements): elements.count
        default: 1
        }
    }

    private static func contains(_ container: FilterValue, _ item: FilterValue) -> Bool {
        switch container {
        case .string(let text):
            guard case .string(let needle) = item else { return false }
            return FilterSubstring.firstIndex(of: Array(needle.utf8), in: Array(text.utf8)) != nil
        case .array(let elements):
            return elements.contains { equal($0, item) }
        default:
            return false
        }
    }

    private static func arithmetic(_ operation: FilterArithmetic, _ a: Double, _ b: Double) -> Double? {
        let result: Double
        switch operation {
        case .add: result = a + b
        case .subtract: result = a - b
        case .multiply: result = a * b
        case .divide:
            guard b != 0 else { return nil }
            result = a / b
        case .remainder:
            guard b != 0 else { return nil }
            result = a.truncatingRemainder(dividingBy: b)
        }
        return result.isFinite ? result : nil
    }
}
