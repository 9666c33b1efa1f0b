import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPRequestParser {
    /// A head the parser read in full, kept so that the connection's next head, when it is the same
    /// bytes with another target, is read by comparing bytes instead of parsing them again.
    ///
    /// A client's requests on one connection usually differ only in their target: a publisher's in
    /// its message segment, a subscriber's in its `tt` cursor, while the method, version and every
    /// header line come back byte for byte. When the bytes before the target and the bytes from its
    /// end through the head's empty line are the kept ones, the new head is the kept head with the
    /// new target: the same method, version and fields, so the same framing and the same answer to
    /// every check the full parse makes of them. The target itself is checked as the request line's
    /// parse checks it (visible ASCII, not empty), the head must fit in `maxHeadBytes`, and its
    /// endpoint family must keep its field lines exactly when the kept one's did; anything else is
    /// parsed in full, so a match gives what the full parse would. The comparison is made when a
    /// head's first bytes are read (again only while no more than two have arrived): a head not
    /// all there by then is parsed in full as the rest arrives.
    ///
    /// Only a head of at most `maxKeptHeadBytes` that frames no body, keeps the connection open
    /// and has no empty lines before it is kept; its target is not (the template holds no received
    /// bytes). A connection's kept head is replaced by the next head parsed in full, and lives as
    /// long as the connection. With a `KeptHeadBank`, connections of one loop keeping equal bytes
    /// share one instance.
    ///
    /// A class, immutable: the parser holds one reference, so a connection's state does not carry
    /// a copy of the template, and connections sharing a kept head read one copy that stays in
    /// cache rather than each its own.
    final class KeptHead: Sendable {
        /// The head as read, its target emptied.
        let template: RequestHead
        /// The head's bytes without its target: the method and space, then the rest of the head
        /// from the space after the target through the closing CRLF CRLF.
        let bytes: [UInt8]
        /// Where the target began, which is where the bytes after it begin in `bytes`.
        let targetStart: Int

        /// A kept head of `template`, whose bytes without its target are `bytes`.
        init(template: RequestHead, bytes: [UInt8], targetStart: Int) {
            self.template = template
            self.bytes = bytes
            self.targetStart = targetStart
        }

        /// The template's head with `target` and its `family`, built field by field off the
        /// template in place: passing the template on would copy it (retaining its strings).
        func head(target: ByteBuffer, family: RequestFamily) -> RequestHead {
            RequestHead(method: template.method, target: target, family: family, minorVersion: template.minorVersion,
                        keepAlive: template.keepAlive, contentLength: template.contentLength, chunked: template.chunked,
                        contentEncoding: template.contentEncoding, fieldCount: template.fieldCount,
                        fieldBlock: template.fieldBlock)
        }
    }

    /// Most bytes of a head kept for comparison.
    static let maxKeptHeadBytes = 2048

    /// Keeps `head`, read from the first `end` readable bytes of `buffer`, when it may serve as
    /// the next head's template.
    mutating func keepHead(_ head: RequestHead, end: Int, of buffer: ByteBuffer) {
        guard leadingBlankLines == 0, head.keepAlive, !head.chunked, (head.contentLength ?? 0) == 0,
              end <= Self.maxKeptHeadBytes else {
            kept = nil
            return
        }
        var template = head
        template.target = ByteBuffer()
        // The request line is `METHOD SP target SP version`: the target starts after the first space.
        let kept = buffer.withUnsafeReadableBytes { raw -> KeptHead in
            let targetStart = raw.firstIndex(of: .space)! + 1
            let targetEnd = targetStart + head.target.readableBytes
            var bytes = [UInt8]()
            bytes.reserveCapacity(end - head.target.readableBytes)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[..<targetStart]))
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[targetEnd..<end]))
            return KeptHead(template: template, bytes: bytes, targetStart: targetStart)
        }
        self.kept = bank?.share(kept) ?? kept
    }

    /// Reads the buffered head as the kept head with another target, when there is a kept head
    /// and the buffered one is it; nil (with nothing consumed) when it is not, or not yet all
    /// received.
    mutating func readKeptHead() -> Part? {
        guard let bytes = buffer, let kept else { return nil }
        let (limit, targetStart) = (maxHeadBytes, kept.targetStart)
        let matched: (targetEnd: Int, end: Int)? = bytes.withUnsafeReadableBytes { raw in
            kept.bytes.withUnsafeBytes { keptBytes in
                Self.match(raw, kept: keptBytes, targetStart: targetStart, limit: limit)
            }
        }
        guard let (targetEnd, end) = matched else { return nil }
        let target = bytes.getSlice(at: bytes.readerIndex + targetStart, length: targetEnd - targetStart)!
        let family = target.withUnsafeReadableBytes { RequestFamily(target: $0) }
        // The field lines are kept for some families only: the template's serve only a head that
        // treats them alike. (Read through `family`: a computed property of the template would
        // be called on a copy of it.)
        guard family.fieldsUnread == kept.template.family.fieldsUnread else { return nil }
        return finishHead(kept.head(target: target, family: family), end: end)
    }

    /// Where the target and the head end in `raw` when `raw` begins with a head that is `kept`
    /// with a non-empty target of visible ASCII at `targetStart`, all within `limit` bytes.
    static func match(_ raw: UnsafeRawBufferPointer, kept: UnsafeRawBufferPointer, targetStart: Int,
                      limit: Int) -> (targetEnd: Int, end: Int)? {
        let restCount = kept.count - targetStart
        guard raw.count > kept.count, let base = raw.baseAddress, let keptBase = kept.baseAddress,
              memcmp(base, keptBase, targetStart) == 0 else { return nil }
        // The target is scanned no further than a head within `limit` could reach.
        let scanEnd = min(raw.count, limit - restCount)
        let targetEnd = endOfVisible(raw, from: targetStart, to: scanEnd)
        let end = targetEnd + restCount
        guard targetEnd > targetStart, end <= raw.count, end <= limit,
              memcmp(base + targetEnd, keptBase + targetStart, restCount) == 0 else { return nil }
        return (targetEnd, end)
    }

    /// The index of the first byte of `raw` in `start..<end` outside visible ASCII (0x21–0x7E), or
    /// `end`: eight bytes at a time while all eight are visible, then byte by byte.
    ///
    /// A word holds a byte below 0x21 exactly when subtracting 0x21 from every byte borrows into
    /// the high bit of a byte whose own high bit was clear, and a byte above 0x7E exactly when
    /// adding one to every byte sets a high bit or one was set already (the classic "has less" and
    /// "has more" tests, exact for these bounds).
    static func endOfVisible(_ raw: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while index + 8 <= end {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let below = (word &- ones &* 0x21) & ~word & highs
            let above = ((word &+ ones) | word) & highs
            guard below | above == 0 else { break }
            index += 8
        }
        while index < end, raw[index] > 0x20, raw[index] < 0x7F { index += 1 }
        return index
    }
}
