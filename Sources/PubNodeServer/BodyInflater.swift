import CZlib
import NIOCore

/// Undoes a request body's `Content-Encoding` (gzip or zlib-wrapped deflate) with the system zlib,
/// bounded: a body that inflates past the limit is refused rather than inflated whole.
enum BodyInflater {
    /// Why a body could not be inflated.
    struct Failure: Error {}

    /// `body` inflated; throws when it is not a valid gzip or zlib stream, or inflates to more than
    /// `limit` bytes. Concatenated gzip members are inflated one after another.
    static func inflate(_ body: ByteBuffer, limit: Int, allocator: ByteBufferAllocator) throws(Failure) -> ByteBuffer {
        // zlib keeps the stream's address in its state: it must not move between calls.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        // 15 + 32: the largest window, with the gzip or zlib header recognised automatically.
        guard inflateInit2_(stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure()
        }
        var output = allocator.buffer(capacity: min(limit + 1, max(1024, body.readableBytes * 4)))
        let complete = body.withUnsafeReadableBytes { input -> Bool in
            guard let base = input.baseAddress, input.count > 0 else { return false }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(input.count)
            while true {
                if output.writableBytes == 0 {
                    guard output.readableBytes <= limit else { return false }
                    output.reserveCapacity(minimumWritableBytes: min(limit + 1 - output.readableBytes, output.readableBytes) + 1)
                }
                var status = Z_OK
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: 1) { space -> Int in
                    stream.pointee.next_out = space.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = uInt(space.count)
                    status = CZlib.inflate(stream, Z_NO_FLUSH)
                    return space.count - Int(stream.pointee.avail_out)
                }
                if output.readableBytes > limit { return false }
                switch status {
                case Z_STREAM_END:
                    // Another gzip member may follow.
                    guard stream.pointee.avail_in > 0 else { return true }
                    guard inflateReset(stream) == Z_OK else { return false }
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.pointee.avail_out > 0:
                    return false // the input ended mid-stream
                case Z_BUF_ERROR:
                    continue
                default:
                    return false
                }
            }
        }
        guard complete else { throw Failure() }
        return output
    }
}
