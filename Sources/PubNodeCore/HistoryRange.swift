/// A slice of a channel's history given by PubNub's `start` and `end` timetokens.
///
/// `start` is exclusive and `end` inclusive, whichever of the two is larger: with `start > end`
/// the slice is `end ≤ t < start`; with `start < end` it is `start < t ≤ end`; equal values select
/// nothing. `start` alone selects `t < start` (older), `end` alone `t ≥ end` (newer).
public struct HistoryRange: Sendable, Equatable {
    /// The exclusive boundary, if given.
    public var start: Timetoken?
    /// The inclusive boundary, if given.
    public var end: Timetoken?

    /// The largest timetoken a store must handle (SQLite integers are signed 64-bit).
    public static let maxTimetoken = UInt64(Int64.max)

    /// Creates a range; both boundaries absent means the whole history.
    public init(start: Timetoken? = nil, end: Timetoken? = nil) {
        self.start = start
        self.end = end
    }

    /// The whole history.
    public static let all = HistoryRange()

    /// The selected timetokens as an inclusive raw interval, or nil when nothing can match.
    public var bounds: ClosedRange<UInt64>? {
        let cap = Self.maxTimetoken
        switch (start?.rawValue, end?.rawValue) {
        case (nil, nil):
            return 0...cap
        case (let start?, nil):
            return start == 0 ? nil : 0...min(start - 1, cap)
        case (nil, let end?):
            return end > cap ? nil : end...cap
        case (let start?, let end?):
            if start == end { return nil }
            if start > end { return end > cap ? nil : end...min(start - 1, cap) }
            return start >= cap ? nil : (start + 1)...min(end, cap)
        }
    }

    /// True when `timetoken` lies in the range.
    public func contains(_ timetoken: Timetoken) -> Bool {
        bounds?.contains(timetoken.rawValue) ?? false
    }
}

/// What to read from one channel's history.
public struct HistoryQuery: Sendable, Equatable {
    /// The slice of time.
    public var range: HistoryRange
    /// The most messages returned.
    public var limit: Int
    /// Take the page from the oldest end of the slice (v2 `reverse=true`); otherwise from the newest.
    public var fromOldest: Bool

    /// Creates a query.
    public init(range: HistoryRange = .all, limit: Int = 100, fromOldest: Bool = false) {
        self.range = range
        self.limit = limit
        self.fromOldest = fromOldest
    }
}
