/// What a filter expression is evaluated against.
public enum FilterMode: Sendable {
    /// A subscribe filter (`filter-expr`): the document is `{"meta": <meta or null>, "data": <payload>}`;
    /// paths starting with `meta` or `data` read from it, any other bare path `x.y` means `meta.x.y`.
    case message
    /// An App Context `filter`: the document is the object as served; paths read from its root.
    case objects
}

/// Why an expression was refused.
public struct FilterError: Error, Sendable, Equatable {
    /// What is wrong, for the client.
    public var reason: String

    /// Creates an error.
    public init(reason: String) {
        self.reason = reason
    }

    init(_ reason: String) {
        self.reason = reason
    }
}

/// A parsed, validated expression, ready to evaluate any number of times from any thread.
public struct CompiledFilter: Sendable {
    /// The expression as given.
    public let text: String
    let root: FilterNode

    /// Whether `document` satisfies the expression. Never throws: a missing field, a type
    /// mismatch, a division by zero or a non-finite result make the comparison concerned false.
    public func matches(_ document: FilterValue) -> Bool {
        var budget = Self.evaluationBudget
        return root.evaluate(in: document, budget: &budget) == .bool(true)
    }

    /// The work one evaluation may do (nodes visited plus bytes `LIKE`/`CONTAINS` scan); beyond
    /// it the document does not match.
    public static let evaluationBudget = 256 * 1024
}

/// The filter expression language shared by subscribe filters and App Context queries.
///
/// Grammar, loosest binding first: `||`; `&&`; `!`; a comparison (`== != > < >= <=`, `LIKE`,
/// `CONTAINS`, at most one per operand pair); `+ -`; `* / %`; unary `-`; operands (numbers,
/// '…' or "…" strings, `true`, `false`, `null`, paths with `.key`, `["key"]` and `[0]`, and
/// parenthesized expressions). Keywords are case-insensitive. On the right of a comparison a bare
/// one-word identifier (`language != spanish`) is a string literal.
public enum FilterExpression {
    /// The longest expression accepted, in UTF-8 bytes.
    public static let maxTextBytes = 2_048
    /// The deepest nesting of parentheses and unary operators.
    public static let maxDepth = 32
    /// The most syntax nodes (operands and operators) in one expression.
    public static let maxNodes = 256
    /// The longest string literal or identifier, in bytes.
    public static let maxLiteralBytes = 1_024

    /// Parses and validates `text` for `mode`.
    public static func compile(_ text: String, mode: FilterMode) throws(FilterError) -> CompiledFilter {
        guard text.utf8.count <= maxTextBytes else {
            throw FilterError("expression longer than \(maxTextBytes) bytes")
        }
        guard !text.utf8.contains(0) else { throw FilterError("NUL byte in expression") }
        let tokens = try FilterLexer.tokens(text)
        var parser = FilterParser(tokens: tokens, mode: mode)
        return CompiledFilter(text: text, root: try parser.expression())
    }
}
