import Foundation
import NIOPosix
import PubNodeRedis
import XCTest

/// A throwaway `redis-server` on loopback, in a temporary directory, stopped when the test ends.
///
/// Without `redis-server` on the PATH the test is skipped, unless `PUBNODE_REQUIRE_REDIS=1`
/// (as `.ci/run` sets) makes that a failure.
final class RedisServerProcess: @unchecked Sendable {
    // Invariant: `process` is set once in `start` and only read afterwards.
    let port: Int
    let directory: URL
    private let process: Process

    /// `redis://127.0.0.1:<port>`.
    var url: String { "redis://127.0.0.1:\(port)" }

    private init(port: Int, directory: URL, process: Process) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Starts a server and waits for its "Ready to accept connections" line.
    static func start(port requested: Int? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> RedisServerProcess {
        guard let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            if ProcessInfo.processInfo.environment["PUBNODE_REQUIRE_REDIS"] == "1" {
                XCTFail("redis-server is not installed", file: file, line: line)
            }
            throw XCTSkip("redis-server is not installed (apt-get install redis-server)")
        }
        let port = requested ?? freePort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", directory.path, "--daemonize", "no", "--loglevel", "notice"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let ready = DispatchSemaphore(value: 0)
        let reader = output.fileHandleForReading
        let seen = LockedText()
        reader.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { reader.readabilityHandler = nil; ready.signal(); return }
            if seen.append(String(decoding: data, as: UTF8.self)).contains("Ready to accept connections") {
                reader.readabilityHandler = nil
                ready.signal()
            }
        }
        guard ready.wait(timeout: .now() + 20) == .success, process.isRunning else {
            process.terminate()
            throw XCTSkip("redis-server did not start: \(seen.text)")
        }
        return RedisServerProcess(port: port, directory: directory, process: process)
    }

    /// Stops the server (SIGTERM) and waits for it to exit.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Stops the server and removes its directory.
    func destroy() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A free TCP port on loopback (bound, read and released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Text appended from one thread and read from another.
final class LockedText: @unchecked Sendable {
    // Invariant: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value = ""

    /// Appends and returns the whole text.
    func append(_ more: String) -> String {
        lock.withLock {
            value += more
            return value
        }
    }

    /// The text so far.
    var text: String { lock.withLock { value } }
}

/// A test case with its own `redis-server` for each test, started before and destroyed after.
class RedisServerTestCase: XCTestCase {
    /// The server of the running test.
    var server: RedisServerProcess!
    /// The event loops connections use.
    let group = MultiThreadedEventLoopGroup.singleton

    override func setUpWithError() throws {
        server = try RedisServerProcess.start()
    }

    override func tearDown() {
        server?.destroy()
    }

    /// A new connection to this test's server.
    func connect() async throws -> RedisConnection {
        try await RedisConnection.connect(to: RedisAddress(url: server.url), on: group)
    }
}
