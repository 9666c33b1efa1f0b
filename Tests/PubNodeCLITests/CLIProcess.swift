import Foundation
import PubNodeTestSupport
import XCTest

/// A spawned `pubnode-cli`, its output collected as it runs.
final class CLIProcess: @unchecked Sendable {
    // Invariant: `output` and `errors` are only touched while `lock` is held.
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private let readers = DispatchGroup()
    let process = Process()

    /// The built `pubnode-cli`, next to the test bundle in the build products directory.
    static let executable: URL? = {
        var directories = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                           Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return directories.map { $0.appendingPathComponent("pubnode-cli") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Starts `pubnode-cli arguments…` with `stdin` as standard input (empty when nil) and
    /// `environment` added to a copy of this process's environment without `PUBNODE_*` and `NO_COLOR`.
    init(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws {
        guard let executable = Self.executable else {
            throw NSError(domain: "CLIProcess", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: "pubnode-cli not found next to the test bundle"])
        }
        process.executableURL = executable
        process.arguments = arguments
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUBNODE_") && $0.key != "NO_COLOR" }
        base.merge(environment) { _, new in new }
        process.environment = base
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        collect(outPipe.fileHandleForReading) { self.output.append($0) }
        collect(errPipe.fileHandleForReading) { self.errors.append($0) }
        let input = inPipe.fileHandleForWriting
        if let stdin { input.write(Data(stdin.utf8)) }
        try? input.close()
    }

    private func collect(_ handle: FileHandle, into append: @escaping @Sendable (Data) -> Void) {
        readers.enter()
        Thread.detachNewThread { [lock, readers] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.lock(); append(chunk); lock.unlock()
            }
            readers.leave()
        }
    }

    /// Standard output so far.
    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: output, as: UTF8.self) }
    /// Standard error so far.
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: errors, as: UTF8.self) }
    /// Non-empty lines of standard output so far.
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Sends SIGINT, as Ctrl-C does.
    func interrupt() { process.interrupt() }

    /// Waits up to `seconds` for the exit status (output fully read); kills the process and returns nil on timeout.
    func waitForExit(_ seconds: Double = 20) async -> Int32? {
        let exited = await eventually(timeout: .milliseconds(Int64(seconds * 1000))) { !process.isRunning }
        guard exited else {
            process.terminate()
            return nil
        }
        _ = readers.wait(timeout: .now() + 5)
        return process.terminationStatus
    }
}

/// The outcome of one `pubnode-cli` run.
struct CLIResult {
    var status: Int32?
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs `pubnode-cli arguments…` to completion.
func runCLI(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
            timeout: Double = 20) async throws -> CLIResult {
    let process = try CLIProcess(arguments, stdin: stdin, environment: environment)
    let status = await process.waitForExit(timeout)
    return CLIResult(status: status, stdout: process.stdout, stderr: process.stderr)
}
