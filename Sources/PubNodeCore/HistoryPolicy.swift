/// Whether and for how long one keyset keeps history.
public struct HistoryPolicy: Sendable, Equatable {
    /// Whether published messages are stored and history endpoints answer.
    public var enabled: Bool
    /// Hours a message is kept when it names no `ttl`; 0 keeps it forever.
    public var retentionHours: Int

    /// The default: enabled, 7 days.
    public init(enabled: Bool = true, retentionHours: Int = 168) {
        self.enabled = enabled
        self.retentionHours = retentionHours
    }

    /// Expiry (Unix nanoseconds) of a message published at `publishedAt`: its own `ttl` in hours
    /// if given (0 = forever), else the retention; nil keeps it forever.
    public func expiry(publishedAt: UInt64, ttlHours: Int?) -> UInt64? {
        let hours = ttlHours ?? retentionHours
        guard hours > 0 else { return nil }
        let (span, spanOverflow) = UInt64(hours).multipliedReportingOverflow(by: 3_600_000_000_000)
        let (expiry, overflow) = publishedAt.addingReportingOverflow(span)
        return spanOverflow || overflow ? nil : expiry
    }
}
