/// One lexical token of a filter expression, with its byte offset (for error texts).
struct FilterToken: Sendable, Equatable {
    /// What the token is.
    enum Kind: Sendable, Equatable {
        case number(Double)
        case string(String)
        case identifier(String)
        /// An operator or punctuation mark, as written (`==`, `&&`, `(`, `.`, `[`…).
        case symbol(String)
        case end
    }

    var kind: Kind
    var offset: Int
}
