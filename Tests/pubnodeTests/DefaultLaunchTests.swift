import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `swift run pubnode` with no settings: the built binary in a fresh directory.
final class DefaultLaunchTests: XCTestCase {
    /// The built `pubnode`, next to the test bundle in the build products directory.
    static let executable: URL? = {
        var directories = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                           Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return directories.map { $0.appendingPathComponent("pubnode") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Whether nothing listens on 127.0.0.1:`port` (so the test may take it).
    private func isFree(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    func testWithNoSettingsItServesDemoOn8090AndKeepsHistoryInPubnodeData() async throws {
        let executable = try XCTUnwrap(Self.executable, "pubnode not found next to the test bundle")
        guard isFree(port: 8090) else { throw XCTSkip("127.0.0.1:8090 is in use") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-launch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let process = Process()
        process.executableURL = executable
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUBNODE_") }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let (lines, line) = AsyncStream.makeStream(of: String.self)
        let log = EventLog()
        let exited = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try process.run()
        Thread.detachNewThread {
            let handle = errors.fileHandleForReading
            var pending = ""
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += String(decoding: chunk, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let text = String(pending[..<newline])
                    pending = String(pending[pending.index(after: newline)...])
                    log.record(text)
                    line.yield(text)
                }
            }
            line.finish()
        }
        defer { if process.isRunning { process.terminate() } }

        var output = lines.makeAsyncIterator()
        while let text = await output.next() {
            guard text.contains("listening") else { continue }
            XCTAssertTrue(text.contains("127.0.0.1") && text.contains("8090"), text)
            break
        }
        let time = try await HTTPGet.get("http://127.0.0.1:8090/time/0")
        XCTAssertEqual(time.status, 200)
        let published = try await HTTPGet.get("http://127.0.0.1:8090/publish/demo/demo/0/chat/0/%22hi%22")
        XCTAssertTrue(published.body.hasPrefix("[1,\"Sent\""), published.body)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("pubnode-data/history.sqlite").path))

        process.terminate()
        var statuses = exited.stream.makeAsyncIterator()
        let status = await statuses.next()
        XCTAssertEqual(status, 0, "a drained node exits 0")
        while await output.next() != nil {}
        XCTAssertTrue(log.all.contains { $0.contains("draining") }, "\(log.all)")
    }
}
