/// Decimal digits of an unsigned integer as bytes: written, for the numbers the node renders into
/// answers (timetokens, regions, event codes) without building a `String` for each, and read, for
/// the cursors clients send (`Timetoken(decimalDigits:)`).
///
/// The one writer of decimal digits in the package: the envelope (`EnvelopeWriter`) and the HTTP
/// length (`ByteBuffer.writeDecimal`) write through `count(of:)` and `write(_:count:to:)` too.
@usableFromInline
package enum DecimalDigits {
    /// Calls `body` with `value`'s decimal digits (no sign, no leading zeros; `0` for zero).
    @inlinable
    static func with<R>(_ value: UInt64, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let count = Self.count(of: value)
            write(value, count: count, to: digits.baseAddress!)
            return body(UnsafeRawBufferPointer(start: digits.baseAddress, count: count))
        }
    }

    /// How many decimal digits `value` has (1 to 20).
    @inlinable
    package static func count(of value: UInt64) -> Int {
        var digits = 1
        var rest = value
        while rest >= 100 {
            rest /= 100
            digits += 2
        }
        return rest >= 10 ? digits + 1 : digits
    }

    /// Writes `value`'s `count` decimal digits (`count(of:)`) at `start`, two at a time from the
    /// last.
    @inlinable
    package static func write(_ value: UInt64, count: Int, to start: UnsafeMutablePointer<UInt8>) {
        let pairs = pairs.utf8Start
        var end = count
        var rest = value
        while rest >= 10 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            start[end - 1] = pairs[pair + 1]
            start[end - 2] = pairs[pair]
            end -= 2
        }
        if end == 1 { start[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest) }
    }

    /// The two-digit numbers 00–99, two bytes each.
    @usableFromInline
    static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// The value of `raw` when it is 1 to 19 ASCII decimal digits (no sign, no spaces); nil for
    /// anything else. Up to 19 digits cannot overflow (10¹⁹ − 1 < 2⁶⁴).
    ///
    /// The first `count % 8` digits are read one by one, then eight at a time from one
    /// little-endian word each (`eightDigits`): a cursor's 17 digits in one step and two words
    /// rather than seventeen steps.
    @inlinable
    static func value(of raw: UnsafeRawBufferPointer) -> UInt64? {
        let count = raw.count
        guard count > 0, count < 20 else { return nil }
        var value: UInt64 = 0
        var index = 0
        let head = count & 7
        while index < head {
            let decimal = raw[index] &- UInt8(ascii: "0")
            guard decimal < 10 else { return nil }
            value = value &* 10 &+ UInt64(decimal)
            index += 1
        }
        while index < count {
            guard let eight = eightDigits(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            else { return nil }
            value = value &* 100_000_000 &+ eight
            index += 8
        }
        return value
    }

    /// The value of the eight ASCII decimal digits in `word`, the first digit in its lowest byte;
    /// nil unless every byte is a digit.
    ///
    /// A byte is a digit (0x30–0x39) exactly when its high nibble is 3 and stays 3 after adding 6;
    /// a byte the addition carries out of has a high nibble of 0xF already, so the word fails
    /// whatever the carry does to the next byte. The digits are then combined pairwise: adjacent
    /// digits into two-digit numbers (× 10 + next, by one multiplication for all four pairs), those
    /// into four-digit numbers (× 100), and those into the eight-digit value (× 10,000), each
    /// multiplication placing the sum in the upper lane that the shift brings down.
    @inlinable
    static func eightDigits(_ word: UInt64) -> UInt64? {
        let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        let digitNibbles = (word & highNibbles) | (((word &+ 0x0606_0606_0606_0606) & highNibbles) >> 4)
        guard digitNibbles == 0x3333_3333_3333_3333 else { return nil }
        var lanes = word & 0x0F0F_0F0F_0F0F_0F0F
        lanes = (lanes &* (10 << 8 + 1)) >> 8
        lanes = ((lanes & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) >> 16
        return ((lanes & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) >> 32
    }
}
