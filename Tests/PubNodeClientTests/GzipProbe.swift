import Foundation
@testable import PubNodeClient

/// Reaches the internal gzip writer for a known-vector check.
enum GzipProbe {
    static func crc32(_ text: String) -> UInt32 { Gzip.crc32(Array(text.utf8)) }
    static func compressedSize(_ text: String) -> Int? { Gzip.wrap(Data(text.utf8))?.count }
}
