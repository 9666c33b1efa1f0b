import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request target kept by a connection with the byte range of the one value in it that changes
/// from request to request (a long-poll's `tt`, a publish's message): a new target is the kept one
/// with another value when the bytes before and after that value are the same.
struct KeptTarget {
    /// The target as received.
    let target: String
    /// The byte offsets of the changing value within `target`.
    let value: Range<Int>

    /// Where `target`'s bytes are, for a prefetch (`Prefetch`): in its own storage, as long as the
    /// target lives; nil for a target short enough to be held inline.
    var bytesAddress: UnsafeRawPointer? {
        guard target.utf8.count > 15 else { return nil }
        return target.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    /// Calls `body` with the new value's bytes when `target` has the kept bytes before and after
    /// it (the new value may have another length, and may be empty); nil otherwise. `target` is
    /// read in place (the received bytes); the kept string was read off the wire, so it is native
    /// and contiguous (a foreign one would simply never match).
    func changedValue<Result>(in target: ByteBuffer, _ body: (UnsafeBufferPointer<UInt8>) -> Result?) -> Result? {
        let kept = value
        let found: Result?? = target.withUnsafeReadableBytes { raw in
            let newBytes = raw.assumingMemoryBound(to: UInt8.self)
            return self.target.utf8.withContiguousStorageIfAvailable { oldBytes in
                let suffix = oldBytes.count - kept.upperBound
                let valueEnd = newBytes.count - suffix
                guard valueEnd >= kept.lowerBound,
                      Self.same(newBytes, oldBytes, 0..<kept.lowerBound, 0..<kept.lowerBound),
                      Self.same(newBytes, oldBytes, valueEnd..<newBytes.count, kept.upperBound..<oldBytes.count)
                else { return nil }
                return body(UnsafeBufferPointer(rebasing: newBytes[kept.lowerBound..<valueEnd]))
            }
        }
        return found ?? nil
    }

    /// Whether `a[aRange]` and `b[bRange]` hold the same bytes.
    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>,
                             _ aRange: Range<Int>, _ bRange: Range<Int>) -> Bool {
        guard aRange.count == bRange.count else { return false }
        guard let aBase = a.baseAddress, let bBase = b.baseAddress, !aRange.isEmpty else { return true }
        return memcmp(aBase + aRange.lowerBound, bBase + bRange.lowerBound, aRange.count) == 0
    }
}
