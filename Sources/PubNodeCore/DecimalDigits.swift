/// Decimal digits of an unsigned integer written as bytes, for the numbers the node renders into
/// answers (timetokens, regions, event codes) without building a `String` for each.
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
}
