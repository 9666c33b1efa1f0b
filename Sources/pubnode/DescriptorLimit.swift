#if canImport(Glibc)
import Glibc
#endif

/// The process' open-file limit, which bounds how many connections the node can hold.
enum DescriptorLimit {
    /// Descriptors kept back from connections: databases, logs, webhook clients, listeners.
    static let reserve = 256
    /// The highest soft limit the node asks for.
    static let ceiling: rlim_t = 1 << 20

    /// Raises the soft limit to the hard one (at most `ceiling`), as servers that hold many
    /// connections do; returns the soft limit in force.
    @discardableResult
    static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, ceiling)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Connections the node admits by default: the soft limit less `reserve` (at least 64).
    static func connectionBudget() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 - reserve }
        return max(64, Int(clamping: limit.rlim_cur) - reserve)
    }
}
