extension Duration {
    /// The whole nanoseconds of this duration, saturating at `Int64`'s bounds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !overflowAgain else { return seconds < 0 ? .min : .max }
        return total
    }
}
