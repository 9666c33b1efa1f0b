import Foundation

/// The `PNED` header that prefixes data encrypted by a cryptor other than the legacy one:
/// `"PNED"`, version `1`, the 4-byte cryptor id, the length of the cryptor data (one byte below
/// 255, else `0xFF` and two big-endian bytes) and the cryptor data itself (the IV for `ACRH`).
struct CryptorHeader: Sendable, Equatable {
    /// The four ASCII bytes every header starts with.
    static let sentinel: [UInt8] = Array("PNED".utf8)
    /// The only header version there is.
    static let version: UInt8 = 1

    /// The cryptor's 4-character id, e.g. `"ACRH"`.
    var cryptorId: String
    /// The cryptor's own data (the IV for `ACRH`).
    var cryptorData: [UInt8]
    /// The length of the whole header in bytes.
    var length: Int

    /// The header bytes for `cryptorId` with `cryptorData` (at most 65 535 bytes).
    static func encode(cryptorId: String, cryptorData: [UInt8]) throws(PubNodeClientError) -> [UInt8] {
        let id = Array(cryptorId.utf8)
        guard id.count == 4 else { throw .crypto("malformed cryptor id \(cryptorId)") }
        guard cryptorData.count <= 65_535 else { throw .crypto("cryptor data is too long") }
        var bytes = sentinel + [version] + id
        if cryptorData.count < 255 {
            bytes.append(UInt8(cryptorData.count))
        } else {
            bytes += [0xFF, UInt8(cryptorData.count >> 8), UInt8(cryptorData.count & 0xFF)]
        }
        return bytes + cryptorData
    }

    /// The header at the start of `data`; nil when `data` does not start with `PNED` (legacy data).
    /// Throws for a newer version or a header cut short.
    static func decode(_ data: [UInt8]) throws(PubNodeClientError) -> CryptorHeader? {
        guard data.count >= 4, Array(data[0..<4]) == sentinel else { return nil }
        guard data.count >= 10 else { throw .crypto("decryption error: truncated header") }
        guard data[4] <= version else { throw .crypto("unknown cryptor error: header version \(data[4])") }
        guard let id = String(bytes: data[5..<9], encoding: .utf8) else {
            throw .crypto("decryption error: malformed cryptor id")
        }
        var start = 10
        var count = Int(data[9])
        if count == 255 {
            guard data.count >= 12 else { throw .crypto("decryption error: truncated header") }
            count = Int(data[10]) << 8 | Int(data[11])
            start = 12
        }
        guard data.count >= start + count else { throw .crypto("decryption error: truncated header") }
        return CryptorHeader(cryptorId: id, cryptorData: Array(data[start..<start + count]), length: start + count)
    }
}
