extension String {
    /// The items of a comma-separated list, empty ones dropped (`a,,b` gives `a` and `b`), as a
    /// channel or group list in a target is read.
    ///
    /// Split on the comma's byte rather than on characters: a comma is ASCII, so every item is
    /// whole UTF-8, and no grapheme boundary is computed (which, for a list of one channel, cost
    /// more than the rest of routing a subscribe).
    func commaSeparatedItems() -> [String] {
        let bytes = utf8
        var items: [String] = []
        var start = bytes.startIndex
        while let comma = bytes[start...].firstIndex(of: UInt8(ascii: ",")) {
            if comma != start { items.append(String(self[start..<comma])) }
            start = bytes.index(after: comma)
        }
        if start != bytes.endIndex { items.append(String(self[start...])) }
        return items
    }
}
