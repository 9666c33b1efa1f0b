#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The load tool's own CPU time, so that a run reports what driving the server cost the client
/// (on one machine the two share the cores).
enum ProcessCPU {
    /// User plus system CPU seconds this process has used so far (all its threads).
    static func seconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
