/// A channel/group/uuid pattern of an access token: a regular expression matched in linear time (no backtracking).
///
/// The pattern is compiled once to a Thompson NFA and simulated over the name's Unicode scalars,
/// so matching costs O(program size × name length) whatever the pattern. Supported syntax:
/// literals, `.`, `^`, `$`, `\A`, `\Z`, classes `[abc]`, `[a-z0-9_-]`, `[^…]`, escapes (`\.`, `\\`,
/// `\n`, `\t`…), `\d \w \s \D \W \S` (also inside classes), groups `( )` and `(?: )`, `|`,
/// quantifiers `* + ?`, `{m}`, `{m,}`, `{m,n}`, `{,n}` and their lazy forms (which give the same
/// match/no-match answer). Anything else — backreferences, lookaround, flags, named groups,
/// `\b` — is rejected.
public struct ResourcePattern: Sendable {
    /// The longest accepted pattern, in Unicode scalars.
    public static let maxLength = 256
    /// The largest compiled program accepted (counted repetitions expand into copies).
    public static let maxProgramSize = 4096

    /// The pattern text as given.
    public let source: String
    let program: PatternProgram

    /// Compiles `pattern`, or throws a ``ResourcePatternError`` if it is empty, too long, too
    /// large once compiled, malformed or uses unsupported syntax.
    public init(_ pattern: String) throws(ResourcePatternError) {
        let scalars = Array(pattern.unicodeScalars)
        guard !scalars.isEmpty else { throw .empty }
        guard scalars.count <= Self.maxLength else { throw .tooLong }
        var parser = PatternParser(scalars: scalars)
        let node = try parser.parse()
        self.source = pattern
        self.program = try PatternProgram(compiling: node, limit: Self.maxProgramSize)
    }

    /// Whether the pattern occurs in `name`, with regex *search* semantics (like Python `re.search`):
    /// unanchored unless `^` / `$` are used. `$` also matches before a final newline, as in Python.
    public func matches(_ name: String) -> Bool {
        program.search(Array(name.unicodeScalars))
    }
}

/// Why a pattern was rejected.
public enum ResourcePatternError: Error, Sendable, Equatable {
    /// The pattern is empty.
    case empty
    /// Longer than ``ResourcePattern/maxLength``.
    case tooLong
    /// Counted repetitions would make the program larger than ``ResourcePattern/maxProgramSize``.
    case tooComplex
    /// A parenthesis without its partner.
    case unbalancedParenthesis(offset: Int)
    /// A `[` class that never closes, or a reversed range like `[z-a]`.
    case invalidClass(offset: Int)
    /// A quantifier with nothing to repeat, a double quantifier or `{n,m}` with n > m.
    case invalidQuantifier(offset: Int)
    /// Syntax outside the supported subset (backreference, lookaround, flags, `\b`…), or a dangling `\`.
    case unsupported(offset: Int)
}
