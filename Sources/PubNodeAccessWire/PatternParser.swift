/// A parsed pattern: the syntax tree ``PatternProgram`` compiles.
indirect enum PatternNode {
    case empty
    case scalar(UInt32)
    case set(PatternSet)
    case lineStart
    case lineEnd
    case absoluteEnd
    case concat([PatternNode])
    case alternate([PatternNode])
    case repetition(PatternNode, min: Int, max: Int?)
}

/// A set of scalars: a bracket class, `.`, or one of `\d \w \s` and their negations.
struct PatternSet {
    enum Item {
        case range(UInt32, UInt32)
        case digit(negated: Bool)
        case word(negated: Bool)
        case space(negated: Bool)
    }

    var items: [Item]
    var negated: Bool

    /// `.`: anything but a newline.
    static let dot = PatternSet(items: [.range(0x0a, 0x0a)], negated: true)

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = false
        for item in items where !found {
            switch item {
            case .range(let low, let high): found = (low...high).contains(scalar.value)
            case .digit(let negated): found = Self.isDigit(scalar) != negated
            case .word(let negated): found = Self.isWord(scalar) != negated
            case .space(let negated): found = Self.isSpace(scalar) != negated
            }
        }
        return found != negated
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? (0x30...0x39).contains(scalar.value) : scalar.properties.generalCategory == .decimalNumber
    }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5a).contains(value) || (0x61...0x7a).contains(value)
                || value == 0x5f
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return scalar.properties.numericType != nil
        }
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f].contains(scalar.value)
            : scalar.properties.isWhitespace
    }
}

/// A recursive-descent parser for the supported regular-expression subset.
struct PatternParser {
    let scalars: [Unicode.Scalar]
    var index = 0

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    mutating func parse() throws(ResourcePatternError) -> PatternNode {
        let node = try parseAlternation()
        guard index == scalars.count else { throw .unbalancedParenthesis(offset: index) }
        return node
    }

    mutating func parseAlternation() throws(ResourcePatternError) -> PatternNode {
        var branches = [try parseConcatenation()]
        while peek == "|" {
            index += 1
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternate(branches)
    }

    mutating func parseConcatenation() throws(ResourcePatternError) -> PatternNode {
        var items: [PatternNode] = []
        while let next = peek, next != "|", next != ")" {
            items.append(try parseRepetition())
        }
        return items.isEmpty ? .empty : items.count == 1 ? items[0] : .concat(items)
    }

    mutating func parseRepetition() throws(ResourcePatternError) -> PatternNode {
        var node = try parseAtom()
        var quantified = false
        while let next = peek {
            let offset = index
            var bounds: (Int, Int?)
            switch next {
            case "*": bounds = (0, nil); index += 1
            case "+": bounds = (1, nil); index += 1
            case "?": bounds = (0, 1); index += 1
            case "{":
                guard let counted = try parseCountedQuantifier() else { return node }
                bounds = counted
            default: return node
            }
            switch node {
            case .lineStart, .lineEnd, .absoluteEnd: throw .invalidQuantifier(offset: offset)
            default: break
            }
            guard !quantified else { throw .invalidQuantifier(offset: offset) }
            quantified = true
            if peek == "?" { index += 1 }  // lazy: same match/no-match answer
            if peek == "+" { throw .unsupported(offset: index) }  // possessive
            node = .repetition(node, min: bounds.0, max: bounds.1)
        }
        return node
    }

    /// Parses `{m}`, `{m,}`, `{,n}`, `{m,n}` at `index` (on the `{`); `nil` (index unchanged) when
    /// the brace is a literal, as in Python.
    mutating func parseCountedQuantifier() throws(ResourcePatternError) -> (Int, Int?)? {
        let start = index
        index += 1
        let low = digits()
        var high: String?
        if peek == "," {
            index += 1
            high = digits()
        } else {
            high = low
        }
        guard peek == "}", !(low.isEmpty && high == "" && scalars[index - 1] == "{") else {
            index = start
            return nil
        }
        index += 1
        let cap = 100_000
        let minimum = low.isEmpty ? 0 : (low.count > 6 ? cap + 1 : Int(low) ?? cap + 1)
        let maximum: Int? = (high ?? "").isEmpty ? nil : ((high ?? "").count > 6 ? cap + 1 : Int(high ?? "") ?? cap + 1)
        guard minimum <= cap, (maximum ?? 0) <= cap else { throw .tooComplex }
        if let maximum, maximum < minimum { throw .invalidQuantifier(offset: start) }
        return (minimum, maximum)
    }

    mutating func digits() -> String {
        var text = ""
        while let next = peek, ("0"..."9").contains(next) {
            text.unicodeScalars.append(next)
            index += 1
        }
        return text
    }

    mutating func parseAtom() throws(ResourcePatternError) -> PatternNode {
        let offset = index
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case "(":
            if peek == "?" {
                guard index + 1 < scalars.count, scalars[index + 1] == ":" else { throw .unsupported(offset: offset) }
                index += 2
            }
            let inner = try parseAlternation()
            guard peek == ")" else { throw .unbalancedParenthesis(offset: offset) }
            index += 1
            return inner
        case "[": return .set(try parseClass(start: offset))
        case ".": return .set(.dot)
        case "^": return .lineStart
        case "$": return .lineEnd
        case "\\": return try parseEscape(offset: offset, inClass: false)
        case "*", "+", "?": throw .invalidQuantifier(offset: offset)
        case "{":
            index = offset
            if try parseCountedQuantifier() != nil { throw .invalidQuantifier(offset: offset) }
            index = offset + 1
            return .scalar(scalar.value)
        default: return .scalar(scalar.value)
        }
    }

    /// Parses what follows a `\` (at `offset`); returns a scalar, a set or an anchor.
    mutating func parseEscape(offset: Int, inClass: Bool) throws(ResourcePatternError) -> PatternNode {
        guard let scalar = peek else { throw .unsupported(offset: offset) }
        index += 1
        switch scalar {
        case "d", "D": return .set(PatternSet(items: [.digit(negated: scalar == "D")], negated: false))
        case "w", "W": return .set(PatternSet(items: [.word(negated: scalar == "W")], negated: false))
        case "s", "S": return .set(PatternSet(items: [.space(negated: scalar == "S")], negated: false))
        case "A" where !inClass: return .lineStart
        case "Z" where !inClass: return .absoluteEnd
        case "n": return .scalar(0x0a)
        case "t": return .scalar(0x09)
        case "r": return .scalar(0x0d)
        case "f": return .scalar(0x0c)
        case "v": return .scalar(0x0b)
        default:
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                throw .unsupported(offset: offset)
            }
            return .scalar(scalar.value)
        }
    }

    /// Parses a bracket class; `index` is just past the `[` at `start`.
    mutating func parseClass(start: Int) throws(ResourcePatternError) -> PatternSet {
        var set = PatternSet(items: [], negated: false)
        if peek == "^" {
            set.negated = true
            index += 1
        }
        var first = true
        while true {
            guard let scalar = peek else { throw .invalidClass(offset: start) }
            if scalar == "]" && !first {
                index += 1
                return set
            }
            first = false
            let elementOffset = index
            let low = try classElement()
            guard case .scalar(let lowValue) = low else {
                guard case .set(let inner) = low else { throw .invalidClass(offset: elementOffset) }
                if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    throw .invalidClass(offset: elementOffset)
                }
                set.items.append(contentsOf: inner.items)
                continue
            }
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                guard case .scalar(let highValue) = try classElement(), highValue >= lowValue else {
                    throw .invalidClass(offset: elementOffset)
                }
                set.items.append(.range(lowValue, highValue))
            } else {
                set.items.append(.range(lowValue, lowValue))
            }
        }
    }

    mutating func classElement() throws(ResourcePatternError) -> PatternNode {
        let offset = index
        let scalar = scalars[index]
        index += 1
        return scalar == "\\" ? try parseEscape(offset: offset, inClass: true) : .scalar(scalar.value)
    }
}
