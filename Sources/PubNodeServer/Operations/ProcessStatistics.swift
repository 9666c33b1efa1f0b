#if canImport(Glibc)
import Glibc
#endif

/// The process' own resource use, read from `/proc/self` (Linux); nil fields elsewhere or when a
/// file cannot be read.
struct ProcessStatistics: Sendable {
    /// Resident memory in bytes.
    var residentBytes: Int?
    /// User plus system CPU time in seconds.
    var cpuSeconds: Double?
    /// Open file descriptors.
    var openFileDescriptors: Int?

    /// Reads the figures now.
    static func read() -> ProcessStatistics {
        #if os(Linux)
        var result = ProcessStatistics()
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        if let statm = contents("/proc/self/statm")?.split(separator: " "), statm.count > 1, let pages = Int(statm[1]) {
            result.residentBytes = pages * pageSize
        }
        // Fields after the command name (which is in parentheses and may hold spaces): utime is
        // the 14th field of the line, stime the 15th, in clock ticks.
        if let stat = contents("/proc/self/stat"), let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]), ticks > 0 {
                result.cpuSeconds = (user + system) / ticks
            }
        }
        result.openFileDescriptors = openDescriptors()
        return result
        #else
        return ProcessStatistics()
        #endif
    }

    #if os(Linux)
    private static func contents(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > 1 << 16 { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The process' open descriptors. Linux 6.2 and later give their number as the size of
    /// `/proc/self/fd`, read in one `stat`; before, it is 0 there and the directory is listed,
    /// which with a node's thousands of connections takes milliseconds of its loop's time.
    static func openDescriptors() -> Int? {
        var status = stat()
        if stat("/proc/self/fd", &status) == 0, status.st_size > 0 { return Int(status.st_size) }
        return countEntries("/proc/self/fd")
    }

    /// Entries of a directory, not counting `.`, `..` and the descriptor reading it.
    static func countEntries(_ path: String) -> Int? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return max(0, count - 1)
    }
    #endif
}
