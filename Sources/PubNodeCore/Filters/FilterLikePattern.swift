/// A compiled `LIKE` pattern: `*` matches any run of characters (at the start, the end, both or
/// anywhere), `\*` is a literal `*`, and matching ignores case (Unicode lowercase of both sides).
///
/// Matching is linear in the text and the pattern: the pieces between stars are found leftmost,
/// in order, each with a Knuth-Morris-Pratt search that resumes where the previous one ended, which
/// is exact for star-only globs and never backtracks.
struct FilterLikePattern: Sendable {
    /// The literal pieces between stars, lowercased.
    private let pieces: [[UInt8]]
    /// Whether the pattern starts with a star (the first piece may start anywhere).
    private let openStart: Bool
    /// Whether the pattern ends with a star (the last piece may end anywhere).
    private let openEnd: Bool

    init(_ pattern: String) {
        var pieces: [[UInt8]] = [[]]
        var openStart = false
        var openEnd = false
        let bytes = Array(pattern.lowercased().utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                pieces[pieces.count - 1].append(UInt8(ascii: "*"))
                index += 2
                openEnd = false
                continue
            }
            if byte == UInt8(ascii: "*") {
                if index == 0 { openStart = true }
                if !pieces[pieces.count - 1].isEmpty { pieces.append([]) }
                openEnd = true
            } else {
                pieces[pieces.count - 1].append(byte)
                openEnd = false
            }
            index += 1
        }
        if pieces.count > 1, pieces[pieces.count - 1].isEmpty { pieces.removeLast() }
        self.pieces = pieces
        self.openStart = openStart
        self.openEnd = openEnd
    }

    /// Whether `text` matches.
    func matches(_ text: String) -> Bool {
        let text = Array(text.lowercased().utf8)
        var start = 0
        var end = text.count
        var middle = pieces[...]
        if !openStart {
            guard let first = middle.popFirst(), text.starts(with: first) else { return false }
            start = first.count
            if middle.isEmpty && !openEnd { return start == text.count }
        }
        if !openEnd, let last = middle.popLast() {
            guard text.count - last.count >= start, text[(text.count - last.count)...].elementsEqual(last) else { return false }
            end = text.count - last.count
        }
        for piece in middle where !piece.isEmpty {
            guard let found = FilterSubstring.firstIndex(of: piece, in: text, from: start, to: end) else { return false }
            start = found + piece.count
        }
        return start <= end
    }
}

/// Linear substring search (Knuth-Morris-Pratt).
enum FilterSubstring {
    /// The first index at or after `from` where `needle` occurs entirely before `to`, or nil.
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from: Int = 0, to: Int? = nil) -> Int? {
        let to = to ?? haystack.count
        guard !needle.isEmpty else { return from <= to ? from : nil }
        guard to - from >= needle.count else { return nil }
        var failure = [Int](repeating: 0, count: needle.count)
        var matched = 0
        for index in 1..<max(needle.count, 1) {
            while matched > 0 && needle[index] != needle[matched] { matched = failure[matched - 1] }
            if needle[index] == needle[matched] { matched += 1 }
            failure[index] = matched
        }
        matched = 0
        for index in from..<to {
            while matched > 0 && haystack[index] != needle[matched] { matched = failure[matched - 1] }
            if haystack[index] == needle[matched] { matched += 1 }
            if matched == needle.count { return index - needle.count + 1 }
        }
        return nil
    }
}
