import Foundation
import Logging

/// The history files of a data directory, checked before they are used.
///
/// `history.id` is written once the database exists and holds its identity (a random number also
/// stored inside the database), so start-up can tell "no history yet" from "history was lost".
/// `open()` refuses, with a `HistoryFault`, every state of the database file in which SQLite would
/// otherwise start with less than was committed. A damaged write-ahead log (which an ordinary
/// power loss can leave, as the database runs with `synchronous = NORMAL`) does not stop it: the
/// log is moved aside for salvage, with an error line, and the database opens as of its last
/// checkpoint. See the Storage section of Docs/operations.md.
public struct HistoryFiles: Sendable {
    /// The name of the identity marker inside the data directory.
    public static let markerName = "history.id"

    /// The data directory.
    public let directory: String

    /// The files of `directory`.
    public init(directory: String) {
        self.directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The database file.
    public var database: String { directory + "/" + HistoryDatabase.fileName }
    /// Its write-ahead log.
    public var log: String { database + "-wal" }
    /// Its shared-memory index (rebuilt from the log; never a source of data).
    public var sharedMemory: String { database + "-shm" }
    /// The identity marker.
    public var marker: String { directory + "/" + Self.markerName }

    /// Checks the files, opens the database (creating it in a fresh directory) and records its
    /// identity; throws the first fault found in the database file, with the database closed. A
    /// damaged write-ahead log is moved aside first (`moveLogAside`), logged as an error on
    /// `logger` with the files it moved and what they held.
    public func open(logger: Logger = Logger(label: "pubnode.history"), now: Date = Date()) throws(HistoryFault)
        -> HistoryDatabase {
        let expected = try markerIdentity()
        if let damage = try inspect(historyExisted: expected != nil) {
            let moved: [String]
            do {
                moved = try moveLogAside(stamp: Self.stamp(now))
            } catch {
                throw HistoryFault(.logDamaged, file: log, detail: "\(damage.detail); cannot be moved aside: \(error)")
            }
            logger.error("history write-ahead log damaged; moved aside, opening the database as of its last checkpoint",
                         metadata: ["file": "\(damage.file)", "detail": "\(damage.detail)",
                                    "bytes": "\(damage.bytes)", "frames": "\(damage.frames)",
                                    "movedTo": "\(moved.joined(separator: ", "))",
                                    "note": "commits only in that log are not in history; keep the copies for salvage"])
            if let again = try inspect(historyExisted: expected != nil) {
                throw HistoryFault(.logDamaged, file: log, detail: again.detail)
            }
        }
        let database: HistoryDatabase
        do {
            database = try HistoryDatabase.file(path: self.database)
        } catch {
            throw HistoryFault(.unusable, file: self.database, detail: error.description)
        }
        do {
            let identity = try database.identity()
            if let expected, expected != identity {
                throw HistoryFault(.otherDatabase, file: self.database,
                                   detail: "identity \(identity), \(Self.markerName) names \(expected)")
            }
            if expected == nil { try writeMarker(identity) }
            return database
        } catch {
            try? database.close()
            if let fault = error as? HistoryFault { throw fault }
            throw HistoryFault(.unusable, file: self.database, detail: "\(error)")
        }
    }

    /// What a damaged write-ahead log held.
    public struct LogDamage: Sendable, Equatable {
        /// The log file.
        public var file: String
        /// What is wrong with it.
        public var detail: String
        /// Its size.
        public var bytes: UInt64
        /// The whole frames (page writes) its size allows for.
        public var frames: UInt64
    }

    /// Moves the write-ahead log and its shared-memory index aside as `<name>.damaged-<stamp>`
    /// (never deleting either); returns the new paths.
    public func moveLogAside(stamp: String) throws -> [String] {
        try moveAside([log, sharedMemory], stamp: stamp)
    }

    /// Moves every history file present aside as `<name>.damaged-<stamp>` (never deleting one);
    /// returns the new paths.
    public func moveAside(stamp: String) throws -> [String] {
        try moveAside([database, log, sharedMemory, marker], stamp: stamp)
    }

    private func moveAside(_ paths: [String], stamp: String) throws -> [String] {
        var moved: [String] = []
        for path in paths where FileManager.default.fileExists(atPath: path) {
            let target = path + ".damaged-" + stamp
            try FileManager.default.moveItem(atPath: path, toPath: target)
            moved.append(target)
        }
        return moved
    }

    /// A file-name-safe UTC time stamp, e.g. `20261123T181500Z`.
    public static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    /// The identity `history.id` records, or nil when there is none (no history was created here).
    func markerIdentity() throws(HistoryFault) -> Int64? {
        guard FileManager.default.fileExists(atPath: marker) else { return nil }
        guard let data = FileManager.default.contents(atPath: marker),
              let text = String(data: data, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("database ") }),
              let identity = Int64(line.dropFirst("database ".count)) else {
            throw HistoryFault(.markerUnreadable, file: marker, detail: "expected a line 'database <number>'")
        }
        return identity
    }

    /// Records `identity` in `history.id`.
    func writeMarker(_ identity: Int64) throws(HistoryFault) {
        let text = "database \(identity)\n# The identity of history.sqlite; see the Storage section of Docs/operations.md.\n"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: marker), options: .atomic)
        } catch {
            throw HistoryFault(.markerUnreadable, file: marker, detail: "cannot be written: \(error)")
        }
    }

    /// The checks made before SQLite sees the files: throws a fault of the database file, returns
    /// the damage of a log that fails its checks while the database file passes them.
    func inspect(historyExisted: Bool) throws(HistoryFault) -> LogDamage? {
        let manager = FileManager.default
        guard manager.fileExists(atPath: database) else {
            if historyExisted {
                throw HistoryFault(.missing, file: database, detail: "\(Self.markerName) says a database was created here")
            }
            if let size = size(of: log), size > 0 {
                throw HistoryFault(.missing, file: database, detail: "its write-ahead log (\(size) bytes) is still there")
            }
            return nil
        }
        guard let size = size(of: database), let handle = FileHandle(forReadingAtPath: database) else {
            throw HistoryFault(.unusable, file: database, detail: "cannot be read")
        }
        let head = (try? handle.read(upToCount: 100)).map { [UInt8]($0) } ?? []
        try? handle.close()
        guard size > 0 else {
            throw HistoryFault(.empty, file: database, detail: "0 bytes; a new database is never left empty")
        }
        guard let header = SQLiteFileHeaders.database(head) else {
            throw HistoryFault(.notADatabase, file: database, detail: "no SQLite header in its first 100 bytes")
        }
        let logSize = self.size(of: log) ?? 0
        if logSize == 0, let pages = header.pageCount, size < UInt64(pages * header.pageSize) {
            throw HistoryFault(.truncated, file: database,
                               detail: "\(size) bytes, its header counts \(pages) pages of \(header.pageSize)")
        }
        let frameSize = UInt64(SQLiteFileHeaders.frameHeaderSize + header.pageSize)
        guard let problem = logProblem(size: logSize, pageSize: header.pageSize) else { return nil }
        let frames = logSize > UInt64(SQLiteFileHeaders.walHeaderSize)
            ? (logSize - UInt64(SQLiteFileHeaders.walHeaderSize)) / frameSize : 0
        return LogDamage(file: log, detail: problem, bytes: logSize, frames: frames)
    }

    /// A log with at least one whole frame must have a valid header and a first frame that is
    /// either valid or left over from before the last restart; returns what is wrong, if anything.
    private func logProblem(size: UInt64, pageSize: Int) -> String? {
        let frameSize = SQLiteFileHeaders.frameHeaderSize + pageSize
        guard size >= UInt64(SQLiteFileHeaders.walHeaderSize + frameSize) else { return nil }
        guard let handle = FileHandle(forReadingAtPath: log) else { return "cannot be read" }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: SQLiteFileHeaders.walHeaderSize)).map { [UInt8]($0) } ?? []
        let header: SQLiteFileHeaders.Log
        switch SQLiteFileHeaders.log(head) {
        case .failure(let problem): return "\(problem.text); SQLite would ignore its \(size) bytes"
        case .success(let parsed): header = parsed
        }
        guard header.pageSize == pageSize else {
            return "page size \(header.pageSize), the database's is \(pageSize)"
        }
        let frame = (try? handle.read(upToCount: frameSize)).map { [UInt8]($0) } ?? []
        if SQLiteFileHeaders.firstFrameIsValid(frame, log: header) == false {
            return "its first frame fails its checksum; SQLite would ignore its \(size) bytes"
        }
        return nil
    }

    private func size(of path: String) -> UInt64? {
        guard let value = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] else { return nil }
        return (value as? NSNumber)?.uint64Value ?? value as? UInt64
    }
}
