import PubNodeCore

extension PubNubRequest {
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
