import Foundation
import GRDB
import Logging
@testable import PubNodeHistorySQLite
import XCTest

/// Keeps the error lines a logger is told.
final class ErrorLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [(String, Logger.Metadata)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .error else { return }
        lock.withLock { kept.append(("\(event.message)", event.metadata ?? [:])) }
    }

    var lines: [(String, Logger.Metadata)] { lock.withLock { kept } }
    var logger: Logger { Logger(label: "test") { _ in self } }
}

final class HistoryFilesTests: XCTestCase {
    /// Commits `count` messages, one transaction each (as strict history does).
    private func publish(_ count: Int, into database: HistoryDatabase, from first: Int = 0) throws {
        for index in first..<(first + count) {
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO message (subscribe_key, channel, timetoken, payload) VALUES ('demo', 'room', ?, ?)",
                               arguments: [index + 1, Data("\"message \(index)\"".utf8)])
            }
        }
    }

    private func count(_ database: HistoryDatabase) throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0 }
    }

    private func fault(_ files: HistoryFiles, file: StaticString = #filePath, line: UInt = #line) -> HistoryFault? {
        do {
            let database = try files.open()
            try? database.close()
            XCTFail("the files were accepted", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// A data directory holding a closed database of `messages` messages, checkpointed: its log
    /// is empty.
    private func closedDirectory(messages: Int) throws -> HistoryFiles {
        let files = HistoryFiles(directory: try HistoryFixture.directory(self))
        let database = try files.open()
        try publish(messages, into: database)
        _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try database.close()
        return files
    }

    func testAFreshDirectoryStartsAndRecordsTheDatabaseIdentity() throws {
        let files = HistoryFiles(directory: try HistoryFixture.directory(self))
        let database = try files.open()
        let identity = try database.identity()
        XCTAssertEqual(try files.markerIdentity(), identity, "history.id names the new database")
        try publish(3, into: database)
        try database.close()
        let again = try files.open()
        XCTAssertEqual(try again.identity(), identity)
        XCTAssertEqual(try count(again), 3)
    }

    func testAZeroByteOrMissingDatabaseWhereHistoryExistedIsRefused() throws {
        let files = try closedDirectory(messages: 10)
        try FileHandle(forWritingAtPath: files.database)!.truncate(atOffset: 0)
        XCTAssertEqual(fault(files)?.kind, .empty, "a zero-byte file is not started as a new database")
        try FileManager.default.removeItem(atPath: files.database)
        XCTAssertEqual(fault(files)?.kind, .missing, "history.id says a database was created here")
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.database), "nothing was created in its place")
    }

    func testATruncatedOrOverwrittenDatabaseIsRefused() throws {
        let truncated = try closedDirectory(messages: 300)
        let size = (try FileManager.default.attributesOfItem(atPath: truncated.database)[.size] as! NSNumber).uint64Value
        try FileHandle(forWritingAtPath: truncated.database)!.truncate(atOffset: size / 2)
        XCTAssertEqual(fault(truncated)?.kind, .truncated)

        let overwritten = try closedDirectory(messages: 300)
        let handle = FileHandle(forWritingAtPath: overwritten.database)!
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 8192))
        try handle.close()
        XCTAssertEqual(fault(overwritten)?.kind, .unusable, "PRAGMA quick_check finds the damage")

        let header = try closedDirectory(messages: 1)
        let headerHandle = FileHandle(forWritingAtPath: header.database)!
        try headerHandle.write(contentsOf: Data(repeating: 0, count: 16))
        try headerHandle.close()
        XCTAssertEqual(fault(header)?.kind, .notADatabase)
    }

    func testADatabaseOtherThanTheOneRecordedIsRefused() throws {
        let first = try closedDirectory(messages: 5)
        let second = try closedDirectory(messages: 1)
        try FileManager.default.removeItem(atPath: first.database)
        try FileManager.default.copyItem(atPath: second.database, toPath: first.database)
        XCTAssertEqual(fault(first)?.kind, .otherDatabase)
    }

    /// A live database with 150 messages checkpointed and 150 more only in its write-ahead log,
    /// and a copy of its files as a crash leaves them.
    private func crashedDirectory() throws -> (live: HistoryDatabase, copy: () throws -> HistoryFiles) {
        let live = HistoryFiles(directory: try HistoryFixture.directory(self))
        let database = try live.open()
        try publish(150, into: database)
        _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try publish(150, into: database, from: 150)
        XCTAssertEqual(try count(database), 300)
        return (database, {
            let copy = HistoryFiles(directory: try HistoryFixture.directory(self))
            for (from, to) in [(live.database, copy.database), (live.log, copy.log), (live.marker, copy.marker)] {
                try FileManager.default.copyItem(atPath: from, toPath: to)
            }
            return copy
        })
    }

    private func damage(_ path: String, at offset: UInt64, _ bytes: [UInt8]) throws {
        let handle = FileHandle(forWritingAtPath: path)!
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    private static let when = Date(timeIntervalSince1970: 1_800_000_000)

    /// Opens `files` with a damaged log: it must open as of the last checkpoint, with the log
    /// moved aside (kept) and an error line naming the copies and what they held.
    private func assertLogSetAside(_ files: HistoryFiles, problem: String, file: StaticString = #filePath,
                                   line: UInt = #line) throws {
        let log = try Data(contentsOf: URL(fileURLWithPath: files.log))
        let errors = ErrorLines()
        let database = try files.open(logger: errors.logger, now: Self.when)
        defer { try? database.close() }
        XCTAssertEqual(try count(database), 150, "the database as of its last checkpoint", file: file, line: line)
        let kept = files.log + ".damaged-20270115T080000Z"
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: kept)), log, "the log is kept for salvage",
                       file: file, line: line)
        XCTAssertEqual(errors.lines.count, 1, file: file, line: line)
        let (message, metadata) = try XCTUnwrap(errors.lines.first)
        XCTAssertTrue(message.contains("write-ahead log damaged"), message, file: file, line: line)
        XCTAssertTrue("\(metadata["movedTo"] ?? "")".contains(kept), "\(metadata)", file: file, line: line)
        XCTAssertEqual("\(metadata["bytes"] ?? "")", "\(log.count)", file: file, line: line)
        XCTAssertGreaterThan(Int("\(metadata["frames"] ?? "")") ?? 0, 0, file: file, line: line)
        XCTAssertTrue("\(metadata["detail"] ?? "")".contains(problem), "\(metadata)", file: file, line: line)
    }

    /// The reported loss: a node killed with commits still in its write-ahead log, whose log
    /// header was then damaged. SQLite ignores such a log without an error; the node does so
    /// loudly, keeping the log.
    func testAWriteAheadLogWithADamagedHeaderIsMovedAsideLoudly() throws {
        let (database, crashCopy) = try crashedDirectory()
        defer { try? database.close() }
        let intact = try crashCopy()
        let errors = ErrorLines()
        let reopened = try intact.open(logger: errors.logger)
        XCTAssertEqual(try count(reopened), 300, "an intact log passes the checks and keeps every commit")
        XCTAssertTrue(errors.lines.isEmpty)
        try reopened.close()

        let damaged = try crashCopy()
        try damage(damaged.log, at: 24, [0xDE, 0xAD])
        let evidence = try HistoryFixture.directory(self) + "/evidence.sqlite"
        try FileManager.default.copyItem(atPath: damaged.database, toPath: evidence)
        try FileManager.default.copyItem(atPath: damaged.log, toPath: evidence + "-wal")
        let unchecked = try DatabaseQueue(path: evidence)
        let survivors = try unchecked.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0 }
        XCTAssertLessThan(survivors, 300, "SQLite alone opens it without an error and with fewer messages")
        try assertLogSetAside(damaged, problem: "checksum")
    }

    /// An ordinary power loss with `synchronous = NORMAL`: the first frame after the log restarted
    /// has its header on disk but not its page. The database file is sound: start-up goes on.
    func testAPowerLossInTheFirstFrameMovesTheLogAsideAndOpensTheDatabase() throws {
        let (database, crashCopy) = try crashedDirectory()
        defer { try? database.close() }
        let damaged = try crashCopy()
        try damage(damaged.log, at: UInt64(SQLiteFileHeaders.walHeaderSize + SQLiteFileHeaders.frameHeaderSize + 200),
                   [0x01, 0x02, 0x03, 0x04])
        try assertLogSetAside(damaged, problem: "first frame")
        let again = try damaged.open()
        XCTAssertEqual(try count(again), 150, "a later start finds nothing to set aside")
        try again.close()
    }

    func testADamagedLogBesideADamagedDatabaseStillStopsStartUp() throws {
        let (database, crashCopy) = try crashedDirectory()
        defer { try? database.close() }
        let damaged = try crashCopy()
        try damage(damaged.log, at: 24, [0xDE, 0xAD])
        try damage(damaged.database, at: 0, Array(repeating: 0, count: 16))
        XCTAssertEqual(fault(damaged)?.kind, .notADatabase)
        XCTAssertTrue(FileManager.default.fileExists(atPath: damaged.log), "nothing is moved when start-up stops")
    }

    func testMovingAsideKeepsEveryFileAndLeavesAFreshStart() throws {
        let files = try closedDirectory(messages: 10)
        try FileHandle(forWritingAtPath: files.database)!.truncate(atOffset: 0)
        let moved = try files.moveAside(stamp: HistoryFiles.stamp(Date(timeIntervalSince1970: 1_800_000_000)))
        XCTAssertEqual(moved.map { URL(fileURLWithPath: $0).lastPathComponent },
                       ["history.sqlite.damaged-20270115T080000Z", "history.sqlite-wal.damaged-20270115T080000Z",
                        "history.sqlite-shm.damaged-20270115T080000Z", "history.id.damaged-20270115T080000Z"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.log), "the log never meets another database")
        let database = try files.open()
        XCTAssertEqual(try count(database), 0)
        try database.close()
    }
}
