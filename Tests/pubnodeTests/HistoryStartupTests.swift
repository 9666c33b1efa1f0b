import ArgumentParser
import Foundation
import GRDB
import Logging
import PubNodeHistorySQLite
import Synchronization
import XCTest
@testable import pubnode

/// Keeps what a logger is told.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    let lines = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
    }
}

final class HistoryStartupTests: XCTestCase {
    private func configuration(acceptEmpty: Bool = false) -> NodeConfiguration {
        var configuration = NodeConfiguration()
        configuration.dataDirectory = NSTemporaryDirectory() + "pubnode-startup-\(UUID().uuidString)"
        configuration.history.acceptEmpty = acceptEmpty
        try? FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let directory = configuration.dataDirectory
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return configuration
    }

    /// A data directory whose history existed and whose database file is now zero bytes.
    private func emptiedHistory(_ configuration: NodeConfiguration) throws {
        let database = try XCTUnwrap(try NodeRuntime.openDatabase(configuration, logger: Logger(label: "test")))
        try database.close()
        try FileHandle(forWritingAtPath: configuration.historyDatabasePath)!.truncate(atOffset: 0)
    }

    func testAFreshDataDirectoryStartsWithoutTheFlag() throws {
        let configuration = configuration()
        let database = try NodeRuntime.openDatabase(configuration, logger: Logger(label: "test"))
        XCTAssertNotNil(database)
        XCTAssertTrue(FileManager.default.fileExists(atPath: configuration.dataDirectory + "/history.id"))
        try database?.close()
    }

    func testDamagedHistoryStopsStartUpWithACriticalLineNamingFileFaultAndRecovery() throws {
        let configuration = configuration()
        try emptiedHistory(configuration)
        let handler = RecordingLogHandler()
        XCTAssertThrowsError(try NodeRuntime.openDatabase(configuration, logger: Logger(label: "test") { _ in handler })) {
            XCTAssertEqual(($0 as? ExitCode)?.rawValue, 3)
        }
        let critical = try XCTUnwrap(handler.lines.withLock { $0.first { $0.0 == .critical } })
        XCTAssertEqual(critical.2["file"]?.description, configuration.historyDatabasePath)
        XCTAssertEqual(critical.2["fault"]?.description, "empty")
        XCTAssertTrue(critical.2["recovery"]?.description.contains("--history-accept-empty") ?? false)
        let size = (try FileManager.default.attributesOfItem(atPath: configuration.historyDatabasePath)[.size] as? NSNumber)?.uint64Value
        XCTAssertEqual(size, 0, "the refused file is left as it was")
    }

    func testTheFlagMovesTheDamagedFilesAsideAndStartsEmpty() throws {
        var configuration = configuration()
        try emptiedHistory(configuration)
        configuration.history.acceptEmpty = true
        let handler = RecordingLogHandler()
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        let database = try XCTUnwrap(try NodeRuntime.openDatabase(configuration, logger: Logger(label: "test") { _ in handler },
                                                                  now: when))
        try database.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: configuration.dataDirectory)
        XCTAssertTrue(names.contains("history.sqlite.damaged-20270115T080000Z"), "\(names)")
        XCTAssertTrue(names.contains("history.id.damaged-20270115T080000Z"), "\(names)")
        XCTAssertTrue(names.contains("history.sqlite") && names.contains("history.id"), "a new, empty database")
        XCTAssertTrue(handler.lines.withLock { $0.contains { $0.0 == .error && $0.1.contains("moved aside") } })
        let again = try XCTUnwrap(try NodeRuntime.openDatabase(configuration, logger: Logger(label: "test")))
        try again.close()
    }

    /// A power loss under `synchronous = NORMAL` can leave the write-ahead log's first frame
    /// damaged while the database file is sound: the node starts, without the flag, keeping the
    /// database and setting only the log aside.
    func testADamagedWriteAheadLogAloneDoesNotStopStartUp() throws {
        let live = configuration()
        let database = try XCTUnwrap(try NodeRuntime.openDatabase(live, logger: Logger(label: "test")))
        defer { try? database.close() }
        func insert(_ range: Range<Int>) throws {
            for index in range {
                try database.writer.write { db in
                    try db.execute(sql: "INSERT INTO message (subscribe_key, channel, timetoken, payload) VALUES ('demo', 'room', ?, ?)",
                                   arguments: [index + 1, Data("\"message \(index)\"".utf8)])
                }
            }
        }
        try insert(0..<20)
        _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try insert(20..<40)
        let crashed = configuration()
        for name in ["history.sqlite", "history.sqlite-wal", "history.id"] {
            try FileManager.default.copyItem(atPath: live.dataDirectory + "/" + name, toPath: crashed.dataDirectory + "/" + name)
        }
        let handle = FileHandle(forWritingAtPath: crashed.dataDirectory + "/history.sqlite-wal")!
        try handle.seek(toOffset: 32 + 24 + 100)
        try handle.write(contentsOf: Data([1, 2, 3, 4]))
        try handle.close()

        let reopened = try XCTUnwrap(try NodeRuntime.openDatabase(crashed, logger: Logger(label: "test")))
        defer { try? reopened.close() }
        let count = try reopened.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0 }
        XCTAssertEqual(count, 20, "the database as of its last checkpoint")
        let names = try FileManager.default.contentsOfDirectory(atPath: crashed.dataDirectory)
        XCTAssertTrue(names.contains { $0.hasPrefix("history.sqlite-wal.damaged-") }, "the log is kept: \(names)")
        XCTAssertFalse(names.contains { $0.hasPrefix("history.sqlite.damaged-") }, "the database file stays: \(names)")
    }
}
