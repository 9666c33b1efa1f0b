import NIOCore

extension ByteBuffer {
    /// Writes `value`'s decimal digits (`value` ≥ 0: lengths and counts) in place, without
    /// building a `String` for them; returns how many bytes were written.
    @discardableResult
    mutating func writeDecimal(_ value: Int) -> Int {
        precondition(value >= 0, "a decimal written without a sign")
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return writeWithUnsafeMutableBytes(minimumWritableBytes: digits) { raw in
            var rest = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                raw[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            return digits
        }
    }
}
