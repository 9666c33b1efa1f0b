/// Decimal digits of an unsigned integer as bytes: written, for the numbers the node renders into
/// answers (timetokens, regions, event codes) without building a `String` for each, and read, for
/// the cursors clients send (`Timetoken(decimalDigits:)`).
@usableFromInline
enum DecimalDigits {
    /// Calls `body` with `value`'s decimal digits (no sign, no leading zeros; `0` for zero).
    @inlinable
    static func with<R>(_ value: UInt64, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var value = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                value /= 10
            } while value > 0
            return body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: digits[start...])))
        }
    }

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
