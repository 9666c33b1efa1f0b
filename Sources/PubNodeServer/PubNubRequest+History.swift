import PubNodeCore

extension PubNubRequest {
    /// A timetoken query parameter (`start`, `end`, `timetoken`); nil when absent.
    func timetoken(_ name: String) throws(PubNodeError) -> Timetoken? {
        guard let value = query[name] else { return nil }
        guard let timetoken = Timetoken(parsing: Substring(value)) else {
            throw .invalidParameter("\(name) must be a non-negative integer timetoken (got '\(value.prefix(40))')")
        }
        return timetoken
    }

    /// An integer query parameter that must lie in `range`; `fallback` when absent.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(PubNodeError) -> Int {
        guard let value = try integer(name) else { return fallback }
        guard range.contains(value) else {
            throw .invalidParameter("\(name) must be between \(range.lowerBound) and \(range.upperBound) (got \(value))")
        }
        return value
    }

    /// The `start`/`end` slice of a history request.
    func historyRange() throws(PubNodeError) -> HistoryRange {
        HistoryRange(start: try timetoken("start"), end: try timetoken("end"))
    }
}
