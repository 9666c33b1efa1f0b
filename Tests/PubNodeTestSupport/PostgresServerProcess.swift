import Foundation
import Synchronization
import XCTest

/// A throwaway PostgreSQL 15 cluster on loopback: `initdb` in a temporary directory, `postgres`
/// on a free port, trust authentication for the role `pubnode`, no fsync. Stopped and deleted by
/// `destroy()`.
///
/// PostgreSQL refuses to run as root: as root, both programs run as the `postgres` user (through
/// `runuser`) in a directory that user owns; as anyone else, as that user.
///
/// Without PostgreSQL installed the test is skipped, unless `PUBNODE_REQUIRE_POSTGRES=1` (as
/// `.ci/run` sets) makes that a failure.
public final class PostgresServerProcess: Sendable {
    /// The PostgreSQL programs.
    public static let binaries = "/usr/lib/postgresql/15/bin"
    /// The server's port on 127.0.0.1.
    public let port: Int
    /// The temporary directory holding the cluster and its socket.
    public let directory: URL
    private let process: Mutex<Process?>
    private let schemas = Atomic<Int>(0)

    /// `postgres://pubnode@127.0.0.1:<port>/postgres?sslmode=disable`.
    public var url: String { "postgres://pubnode@127.0.0.1:\(port)/postgres?sslmode=disable" }

    private init(port: Int, directory: URL, process: Process) {
        self.port = port
        self.directory = directory
        self.process = Mutex(process)
    }

    /// Creates a cluster, starts the server and waits until it accepts connections. Throws
    /// `XCTSkip` when PostgreSQL is absent, `PostgresServerError` when it is required.
    public static func start() throws -> PostgresServerProcess {
        guard FileManager.default.isExecutableFile(atPath: binaries + "/initdb") else {
            if ProcessInfo.processInfo.environment["PUBNODE_REQUIRE_POSTGRES"] == "1" {
                throw PostgresServerError(output: "PostgreSQL 15 is not installed and PUBNODE_REQUIRE_POSTGRES=1")
            }
            throw XCTSkip("PostgreSQL 15 is not installed (apt-get install postgresql)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if getuid() == 0 { _ = try run(["/bin/chown", "postgres", directory.path], asServerUser: false) }
        let data = directory.appendingPathComponent("data").path
        let initdb = try run([binaries + "/initdb", "-D", data, "-U", "pubnode", "-A", "trust", "-E", "UTF8",
                              "--no-sync", "--no-instructions"])
        guard initdb.status == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw PostgresServerError(output: "initdb failed: \(initdb.output)")
        }
        let port = freePort()
        let executable = URL(fileURLWithPath: getuid() == 0 ? "/usr/sbin/runuser" : binaries + "/postgres")
        let arguments = (getuid() == 0 ? ["-u", "postgres", "--", binaries + "/postgres"] : [])
            + ["-D", data, "-p", String(port), "-k", directory.path, "-c", "listen_addresses=127.0.0.1",
               "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        guard let process = try launch(executable, arguments) else {
            try? FileManager.default.removeItem(at: directory)
            throw PostgresServerError(output: "postgres did not start on port \(port)")
        }
        return PostgresServerProcess(port: port, directory: directory, process: process)
    }

    /// Runs the server and waits until it logs that it accepts connections (or exits, or 20 s
    /// pass: then nil, the process stopped). Its log is read to the end, so it never blocks on it.
    private static func launch(_ executable: URL?, _ arguments: [String]?) throws -> Process? {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = output
        let ready = DispatchSemaphore(value: 0)
        let seen = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                ready.signal()
                return
            }
            let text = seen.withLock { seen in
                seen = String((seen + String(decoding: data, as: UTF8.self)).suffix(4_096))
                return seen
            }
            if text.contains("ready to accept connections") { ready.signal() }
        }
        try process.run()
        guard ready.wait(timeout: .now() + 20) == .success, process.isRunning,
              seen.withLock({ $0.contains("ready to accept connections") }) else {
            if process.isRunning { process.terminate(); process.waitUntilExit() }
            return nil
        }
        return process
    }

    /// Creates a new empty schema and returns its name (each test isolates itself in one).
    public func makeSchema() throws -> String {
        let name = "test_\(schemas.add(1, ordering: .relaxed).newValue)"
        try sql("CREATE SCHEMA \(name)")
        return name
    }

    /// Runs SQL through `psql` as `pubnode`; throws with psql's output when it fails.
    @discardableResult
    public func sql(_ statement: String, database: String = "postgres") throws -> String {
        let result = try Self.run([Self.binaries + "/psql", "-h", "127.0.0.1", "-p", String(port), "-U", "pubnode",
                                   "-d", database, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", statement], asServerUser: false)
        guard result.status == 0 else { throw PostgresServerError(output: result.output) }
        return result.output
    }

    /// Stops the server (fast shutdown: SIGINT) and waits for it to exit.
    public func stop() {
        guard let process = process.withLock({ $0 }), process.isRunning else { return }
        let pidFile = directory.appendingPathComponent("data/postmaster.pid").path
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
           let pid = text.split(separator: "\n").first.flatMap({ Int32($0) }) {
            kill(pid, SIGINT)
        } else {
            process.interrupt()
        }
        process.waitUntilExit()
    }

    /// Starts the stopped server again on the same port and data.
    public func restart() throws {
        stop()
        let old = process.withLock { $0 }
        guard let process = try Self.launch(old?.executableURL, old?.arguments) else {
            throw PostgresServerError(output: "postgres did not restart")
        }
        self.process.withLock { $0 = process }
    }

    /// Stops the server and removes its directory.
    public func destroy() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a program to its end (as the server's user when root and `asServerUser`).
    private static func run(_ arguments: [String], asServerUser: Bool = true) throws -> (status: Int32, output: String) {
        let process = Process()
        let wrapped = getuid() == 0 && asServerUser ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments
        process.executableURL = URL(fileURLWithPath: wrapped[0])
        process.arguments = Array(wrapped.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: "/tmp")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A free TCP port on loopback (bound, read and released).
    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A failed `psql` or restart, with what it printed.
public struct PostgresServerError: Error, CustomStringConvertible {
    /// What the program printed.
    public var output: String
    /// The output.
    public var description: String { output }
}
