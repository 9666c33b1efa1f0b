/// Recursive descent over the tokens of one expression. Every recursion into a nested operand
/// (parentheses, `!`, unary `-`) checks `FilterExpression.maxDepth` first, and every node counts
/// against `FilterExpression.maxNodes`, so hostile input is refused before it costs stack.
struct FilterParser {
    private let tokens: [FilterToken]
    private let mode: FilterMode
    private var position = 0
    private var depth = 0
    private var nodes = 0

    init(tokens: [FilterToken], mode: FilterMode) {
        self.tokens = tokens
        self.mode = mode
    }

    /// The whole expression; every token must be used.
    mutating func expression() throws(FilterError) -> FilterNode {
        guard current.kind != .end else { throw FilterError("empty expression") }
        let node = try disjunction()
        guard current.kind == .end else { throw unexpected() }
        return node
    }

    private var current: FilterToken { tokens[position] }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private func isKeyword(_ word: String) -> Bool {
        if case .identifier(let name) = current.kind { return name.lowercased() == word }
        return false
    }

    private func unexpected() -> FilterError {
        switch current.kind {
        case .end: FilterError("unexpected end of expression")
        default: FilterError("unexpected token at offset \(current.offset)")
        }
    }

    private mutating func count(_ node: FilterNode) throws(FilterError) -> FilterNode {
        nodes += 1
        guard nodes <= FilterExpression.maxNodes else {
            throw FilterError("expression has more than \(FilterExpression.maxNodes) nodes")
        }
        return node
    }

    private mutating func nested<T>(_ body: (inout FilterParser) throws(FilterError) -> T) throws(FilterError) -> T {
        depth += 1
        guard depth <= FilterExpression.maxDepth else {
            throw FilterError("expression nested deeper than \(FilterExpression.maxDepth) levels")
        }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func disjunction() throws(FilterError) -> FilterNode {
        var terms = [try conjunction()]
        while isSymbol("||") {
            position += 1
            terms.append(try conjunction())
        }
        return terms.count == 1 ? terms[0] : try count(.or(terms))
    }

    private mutating func conjunction() throws(FilterError) -> FilterNode {
        var terms = [try negation()]
        while isSymbol("&&") {
            position += 1
            terms.append(try negation())
        }
        return terms.count == 1 ? terms[0] : try count(.and(terms))
    }

    private mutating func negation() throws(FilterError) -> FilterNode {
        guard isSymbol("!") else { return try comparison() }
        position += 1
        let operand = try nested { (parser: inout FilterParser) throws(FilterError) in try parser.negation() }
        return try count(.not(operand))
    }

    private static let comparisons: [String: FilterComparison] = [
        "==": .equal, "!=": .notEqual, ">": .greater, "<": .less, ">=": .greaterOrEqual, "<=": .lessOrEqual,
    ]

    private mutating func comparison() throws(FilterError) -> FilterNode {
        let left = try additive()
        let node: FilterNode
        if case .symbol(let symbol) = current.kind, let comparison = Self.comparisons[symbol] {
            position += 1
            node = .compare(comparison, left, try rightOperand())
        } else if isKeyword("like") {
            position += 1
            node = .like(left, try likePattern())
        } else if isKeyword("contains") {
            position += 1
            node = .contains(left, try rightOperand())
        } else {
            return left
        }
        if case .symbol(let symbol) = current.kind, Self.comparisons[symbol] != nil { throw FilterError("comparisons cannot be chained") }
        if isKeyword("like") || isKeyword("contains") { throw FilterError("comparisons cannot be chained") }
        return try count(node)
    }

    /// The right side of a comparison: a bare one-word identifier (not followed by `.`, `[` or an
    /// operator that continues an operand) is a string literal, as in `language != spanish`.
    private mutating func rightOperand() throws(FilterError) -> FilterNode {
        if case .identifier(let word) = current.kind, !["true", "false", "null"].contains(word.lowercased()) {
            let follower = tokens[position + 1].kind
            if follower != .symbol("."), follower != .symbol("[") {
                position += 1
                return try count(.literal(.string(word)))
            }
        }
        return try additive()
    }

    private mutating func likePattern() throws(FilterError) -> FilterLikePattern {
        switch current.kind {
        case .string(let text), .identifier(let text):
            position += 1
            return FilterLikePattern(text)
        default:
            throw FilterError("LIKE needs a string pattern at offset \(current.offset)")
        }
    }

    private mutating func additive() throws(FilterError) -> FilterNode {
        var left = try multiplicative()
        while isSymbol("+") || isSymbol("-") {
            let operation: FilterArithmetic = isSymbol("+") ? .add : .subtract
            position += 1
            left = try count(.arithmetic(operation, left, try multiplicative()))
        }
        return left
    }

    private mutating func multiplicative() throws(FilterError) -> FilterNode {
        var left = try unary()
        while isSymbol("*") || isSymbol("/") || isSymbol("%") {
            let operation: FilterArithmetic = isSymbol("*") ? .multiply : isSymbol("/") ? .divide : .remainder
            position += 1
            left = try count(.arithmetic(operation, left, try unary()))
        }
        return left
    }

    private mutating func unary() throws(FilterError) -> FilterNode {
        guard isSymbol("-") else { return try primary() }
        position += 1
        let operand = try nested { (parser: inout FilterParser) throws(FilterError) in try parser.unary() }
        if case .literal(.number(let value)) = operand { return .literal(.number(-value)) }
        return try count(.negate(operand))
    }

    private mutating func primary() throws(FilterError) -> FilterNode {
        let token = current
        switch token.kind {
        case .number(let value):
            position += 1
            return try count(.literal(.number(value)))
        case .string(let text):
            position += 1
            return try count(.literal(.string(text)))
        case .identifier(let name):
            switch name.lowercased() {
            case "true": position += 1; return try count(.literal(.bool(true)))
            case "false": position += 1; return try count(.literal(.bool(false)))
            case "null": position += 1; return try count(.literal(.null))
            default: return try count(.path(try path()))
            }
        case .symbol("("):
            position += 1
            let inner = try nested { (parser: inout FilterParser) throws(FilterError) in try parser.disjunction() }
            guard isSymbol(")") else { throw unexpected() }
            position += 1
            return inner
        default:
            throw unexpected()
        }
    }

    /// `name(.name | ["key"] | [index])*`, rooted for the mode.
    private mutating func path() throws(FilterError) -> [FilterPathStep] {
        guard case .identifier(let first) = current.kind else { throw unexpected() }
        position += 1
        var steps: [FilterPathStep] = [.key(first)]
        if mode == .message, first != "meta", first != "data" { steps.insert(.key("meta"), at: 0) }
        while true {
            if isSymbol(".") {
                position += 1
                guard case .identifier(let name) = current.kind else { throw unexpected() }
                position += 1
                steps.append(.key(name))
            } else if isSymbol("[") {
                position += 1
                switch current.kind {
                case .string(let key): steps.append(.key(key))
                case .number(let value) where value >= 0 && value == value.rounded() && value < 1_000_000:
                    steps.append(.index(Int(value)))
                default: throw FilterError("index must be a string or a non-negative integer at offset \(current.offset)")
                }
                position += 1
                guard isSymbol("]") else { throw unexpected() }
                position += 1
            } else {
                return steps
            }
            guard steps.count <= FilterExpression.maxDepth else { throw FilterError("path longer than \(FilterExpression.maxDepth) steps") }
        }
    }
}
