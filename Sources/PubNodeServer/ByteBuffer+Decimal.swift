import NIOCore
import PubNodeCore

extension ByteBuffer {
    /// Writes `value`'s decimal digits (`value` ≥ 0: lengths and counts) in place, without
    /// building a `String` for them (`DecimalDigits`); returns how many bytes were written.
    @discardableResult
    mutating func writeDecimal(_ value: Int) -> Int {
        precondition(value >= 0, "a decimal written without a sign")
        let value = UInt64(value)
        let digits = DecimalDigits.count(of: value)
        return writeWithUnsafeMutableBytes(minimumWritableBytes: digits) { raw in
            DecimalDigits.write(value, count: digits, to: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            return digits
        }
    }
}
