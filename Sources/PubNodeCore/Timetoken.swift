/// A PubNub timetoken: Unix time in units of 100 nanoseconds (17 decimal digits today).
///
/// Timetokens issued by one node are strictly increasing, so they order every channel's
/// messages and serve as subscription cursors.
public struct Timetoken: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw count of 100 ns ticks since the Unix epoch.
    public var rawValue: UInt64

    /// Creates a timetoken from its raw tick count.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Creates a timetoken from its raw tick count.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// The zero timetoken: "no cursor yet" in a subscribe request.
    public static let zero = Timetoken(0)

    /// Parses the decimal text a client sends (`tt=`, `start=`); `nil` when it is not a non-negative integer.
    public init?(parsing text: Substring) {
        self.init(decimalDigits: text.utf8)
    }

    /// Reads ASCII decimal digits (at most 20, no sign, no spaces); `nil` for anything else or a
    /// value over `UInt64.max`. Inlinable, so that a caller in another module gets a version
    /// specialized for its collection rather than the generic one, which reads each byte through
    /// witness tables.
    ///
    /// Up to 19 digits cannot overflow (10¹⁹ − 1 < 2⁶⁴), so a timetoken's 17 are read without
    /// the overflow checks only a 20th digit needs, and from contiguous bytes eight at a time
    /// (`DecimalDigits.value(of:)`).
    @inlinable
    public init?<Digits: Collection<UInt8>>(decimalDigits digits: Digits) {
        let count = digits.count
        guard count > 0, count <= 20 else { return nil }
        if count < 20, let read = digits.withContiguousStorageIfAvailable({ DecimalDigits.value(of: UnsafeRawBufferPointer($0)) }) {
            guard let read else { return nil }
            self.rawValue = read
            return
        }
        var value: UInt64 = 0
        if count < 20 {
            for digit in digits {
                let decimal = digit &- UInt8(ascii: "0")
                guard decimal < 10 else { return nil }
                value = value &* 10 &+ UInt64(decimal)
            }
        } else {
            for digit in digits {
                let decimal = digit &- UInt8(ascii: "0")
                guard decimal < 10 else { return nil }
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times10.addingReportingOverflow(UInt64(decimal))
                guard !overflow, !carry else { return nil }
                value = sum
            }
        }
        self.rawValue = value
    }

    /// Decimal text of the tick count.
    public var description: String { String(rawValue) }

    /// Calls `body` with the decimal digits of the tick count as bytes, without building a string
    /// (a timetoken's 17 digits would not fit a string's inline storage).
    @inlinable
    public func withDecimalDigits<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        DecimalDigits.with(rawValue, body)
    }

    /// Orders by tick count.
    public static func < (lhs: Timetoken, rhs: Timetoken) -> Bool { lhs.rawValue < rhs.rawValue }
}
