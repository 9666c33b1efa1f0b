#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output helpers for progress lines that other programs wait for.
enum Console {
    /// Prints `line` and flushes stdout at once, even when stdout is a pipe.
    static func announce(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// Prints a diagnostic line to stderr.
    static func note(_ line: String) {
        let text = Array((line + "\n").utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
