import CZlib
import Foundation

/// gzip (RFC 1952) compression of request bodies with the system zlib.
enum Gzip {
    /// `data` compressed as one gzip member, or nil if zlib cannot compress it (the caller then
    /// sends it uncompressed).
    static func wrap(_ data: Data) -> Data? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Data(output.prefix(Int(stream.total_out)))
    }

    /// CRC-32 (as in the gzip trailer) of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }
}
