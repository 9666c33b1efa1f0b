import Foundation

/// The headers of an SQLite database file and of its write-ahead log, read directly.
///
/// SQLite ignores a write-ahead log whose header fails its checks, and with it every commit the
/// log holds, without an error: this is how committed messages can vanish. The node reads the
/// headers itself before SQLite opens the file (file format: https://sqlite.org/fileformat.html).
enum SQLiteFileHeaders {
    /// The first 16 bytes of every database file.
    static let databaseMagic = Array("SQLite format 3\u{0}".utf8)
    /// The write-ahead log magic; the low bit gives the checksums' byte order (1: big-endian).
    static let walMagic: UInt32 = 0x377f_0682
    /// The only write-ahead log format version.
    static let walVersion: UInt32 = 3_007_000
    /// Bytes of the log header, and of each frame's header.
    static let walHeaderSize = 32
    static let frameHeaderSize = 24

    /// What the first 100 bytes of a database file say.
    struct Database: Equatable {
        /// Bytes per page.
        var pageSize: Int
        /// Pages the file should hold, when the header's count is valid (SQLite 3.7.0+ files).
        var pageCount: Int?
    }

    /// Reads a database header; nil when `bytes` is not one.
    static func database(_ bytes: [UInt8]) -> Database? {
        guard bytes.count >= 100, Array(bytes[0..<16]) == databaseMagic else { return nil }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = raw == 1 ? 65_536 : raw
        guard isPageSize(pageSize) else { return nil }
        let changeCounter = word(bytes, 24, bigEndian: true)
        let validFor = word(bytes, 92, bigEndian: true)
        let count = Int(word(bytes, 28, bigEndian: true))
        return Database(pageSize: pageSize, pageCount: changeCounter == validFor && count > 0 ? count : nil)
    }

    /// What the 32-byte header of a write-ahead log says.
    struct Log: Equatable {
        /// Whether checksums read words big-endian.
        var bigEndianChecksums: Bool
        /// Bytes per page; must equal the database's.
        var pageSize: Int
        /// Incremented with each checkpoint that restarts the log.
        var checkpointSequence: UInt32
        /// Random values every valid frame repeats; new ones each time the log restarts.
        var salt1: UInt32
        var salt2: UInt32
        /// The header's checksum: the seed of the first frame's.
        var checksum: (UInt32, UInt32)

        static func == (lhs: Log, rhs: Log) -> Bool {
            lhs.bigEndianChecksums == rhs.bigEndianChecksums && lhs.pageSize == rhs.pageSize
                && lhs.checkpointSequence == rhs.checkpointSequence && lhs.salt1 == rhs.salt1 && lhs.salt2 == rhs.salt2
                && lhs.checksum == rhs.checksum
        }
    }

    /// Reads and checks a log header as SQLite's recovery does (magic, page size, checksum,
    /// version); returns the header or what is wrong with it.
    static func log(_ bytes: [UInt8]) -> Result<Log, LogProblem> {
        guard bytes.count >= walHeaderSize else { return .failure(.init("header is cut short (\(bytes.count) bytes)")) }
        let magic = word(bytes, 0, bigEndian: true)
        guard magic & 0xFFFF_FFFE == walMagic else {
            return .failure(.init("bad magic number 0x\(String(magic, radix: 16))"))
        }
        let pageSize = Int(word(bytes, 8, bigEndian: true))
        guard isPageSize(pageSize) else { return .failure(.init("bad page size \(pageSize)")) }
        let bigEndian = magic & 1 == 1
        let sum = checksum(bytes[0..<24], bigEndian: bigEndian, seed: (0, 0))
        let stored = (word(bytes, 24, bigEndian: true), word(bytes, 28, bigEndian: true))
        guard sum == stored else { return .failure(.init("header checksum does not match")) }
        let version = word(bytes, 4, bigEndian: true)
        guard version == walVersion else { return .failure(.init("unknown format version \(version)")) }
        return .success(Log(bigEndianChecksums: bigEndian, pageSize: pageSize,
                            checkpointSequence: word(bytes, 12, bigEndian: true),
                            salt1: word(bytes, 16, bigEndian: true), salt2: word(bytes, 20, bigEndian: true),
                            checksum: stored))
    }

    /// Why a log header was refused.
    struct LogProblem: Error, Equatable {
        var text: String
        init(_ text: String) { self.text = text }
    }

    /// Checks the first frame of a log: `nil` when its salts are stale (a restarted log not yet
    /// rewritten: SQLite ignores it, and nothing committed is in it), true when it belongs to the
    /// header and its checksum holds, false when it belongs to the header and is damaged.
    static func firstFrameIsValid(_ frame: [UInt8], log: Log) -> Bool? {
        guard frame.count == frameHeaderSize + log.pageSize else { return false }
        guard word(frame, 8, bigEndian: true) == log.salt1, word(frame, 12, bigEndian: true) == log.salt2 else { return nil }
        var sum = checksum(frame[0..<8], bigEndian: log.bigEndianChecksums, seed: log.checksum)
        sum = checksum(frame[frameHeaderSize...], bigEndian: log.bigEndianChecksums, seed: sum)
        let stored = (word(frame, 16, bigEndian: true), word(frame, 20, bigEndian: true))
        return sum == stored && word(frame, 0, bigEndian: true) != 0
    }

    /// SQLite's log checksum over `bytes` (a multiple of 8 bytes), continuing from `seed`.
    static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s1, s2) = seed
        var index = bytes.startIndex
        while index + 8 <= bytes.endIndex {
            s1 = s1 &+ word(bytes, index, bigEndian: bigEndian) &+ s2
            s2 = s2 &+ word(bytes, index + 4, bigEndian: bigEndian) &+ s1
            index += 8
        }
        return (s1, s2)
    }

    /// A 32-bit word at `offset`.
    static func word<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ offset: C.Index, bigEndian: Bool) -> UInt32
    where C.Index == Int {
        let b0 = UInt32(bytes[offset]), b1 = UInt32(bytes[offset + 1])
        let b2 = UInt32(bytes[offset + 2]), b3 = UInt32(bytes[offset + 3])
        return bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
    }

    /// A power of two in 512...65536.
    static func isPageSize(_ size: Int) -> Bool {
        (512...65_536).contains(size) && size & (size - 1) == 0
    }
}
