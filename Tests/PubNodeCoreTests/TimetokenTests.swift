import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class TimetokenTests: XCTestCase {
    func testParsingAcceptsDecimalDigits() {
        XCTAssertEqual(Timetoken(parsing: "0"), Timetoken.zero)
        XCTAssertEqual(Timetoken(parsing: "17000000001234567"), Timetoken(17_000_000_001_234_567))
        XCTAssertEqual(Timetoken(parsing: "0017"), Timetoken(17))
        XCTAssertEqual(Timetoken(parsing: "18446744073709551615"), Timetoken(UInt64.max))
        XCTAssertEqual(Timetoken(parsing: "9999999999999999999"), Timetoken(9_999_999_999_999_999_999), "19 digits, no check needed")
        XCTAssertEqual(Timetoken(parsing: "09999999999999999999"), Timetoken(9_999_999_999_999_999_999), "20, checked")
    }

    func testDecimalDigitsMatchTheDescription() {
        var values: [UInt64] = [0, 7, 10, 17_000_000_001_234_567, UInt64.max]
        var power: UInt64 = 10
        while power < UInt64.max / 10 {
            values += [power - 1, power, power + 1]
            power *= 10
        }
        for value in values {
            let digits = Timetoken(value).withDecimalDigits { Array($0) }
            XCTAssertEqual(String(decoding: digits, as: UTF8.self), String(value))
        }
    }

    func testParsingRejectsAnythingButDigits() {
        for text in ["", "-1", "abc", "1e5", "+1", " 1", "1 ", "1.0", "0x10", "12a", "\u{FF11}", "٣", "1/", ":1", "17000000000000000/"] {
            XCTAssertNil(Timetoken(parsing: Substring(text)), "accepted \(text.debugDescription)")
        }
    }

    func testParsingRejectsOverLongAndOverflowingInput() {
        XCTAssertNil(Timetoken(parsing: "18446744073709551616"), "one past UInt64.max")
        XCTAssertNil(Timetoken(parsing: "99999999999999999999"))
        XCTAssertNil(Timetoken(parsing: "000000000000000000001"), "21 digits")
        XCTAssertNil(Timetoken(parsing: Substring(String(repeating: "1", count: 100))))
    }

    func testParsingASubstringOfLargerText() {
        let query = "tt=17000000000000000&tr=1"
        let value = query.dropFirst(3).prefix(17)
        XCTAssertEqual(Timetoken(parsing: value), Timetoken(17_000_000_000_000_000))
    }

    func testDescriptionAndOrdering() {
        XCTAssertEqual(Timetoken(17_000_000_000_000_001).description, "17000000000000001")
        XCTAssertEqual(Timetoken.zero.description, "0")
        XCTAssertLessThan(Timetoken(9), Timetoken(10))
        XCTAssertEqual(Timetoken(rawValue: 5), Timetoken(5))
        XCTAssertEqual([Timetoken(3), Timetoken(1), Timetoken(2)].sorted(), [Timetoken(1), Timetoken(2), Timetoken(3)])
    }

    /// Parsing from contiguous bytes (eight digits a word) agrees with the standard library's for
    /// every length up to 20 digits, from both contiguous and non-contiguous collections.
    func testParsingContiguousDigitsAgreesWithTheStandardLibrary() {
        var generator = SystemRandomNumberGenerator()
        for length in 1...20 {
            for _ in 0..<200 {
                var text = String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
                if length == 20, Bool.random(using: &generator) { text = "1" + text.dropFirst() }
                let expected = UInt64(text).map(Timetoken.init(rawValue:))
                XCTAssertEqual(Timetoken(decimalDigits: Array(text.utf8)), expected, text)
                XCTAssertEqual(Timetoken(decimalDigits: text.utf8.lazy.map { $0 }), expected, text)
            }
        }
        for value: UInt64 in [0, 1, 9, 10, 99_999_999, 100_000_000, 12_345_678_901_234_567, 9_999_999_999_999_999_999] {
            XCTAssertEqual(Timetoken(decimalDigits: Array(String(value).utf8)), Timetoken(value))
        }
    }

    /// A byte that is not a digit, anywhere in a cursor's digits, refuses the whole: the bytes on
    /// either side of the digits' range and those whose addition carries into the next byte.
    func testParsingContiguousDigitsRejectsEveryOtherByteAtEveryPlace() {
        let digits = Array("12345678901234567890".utf8)
        let others: [UInt8] = [0x00, 0x20, 0x2F, 0x3A, 0x3F, 0x40, 0x69, 0x7F, 0x80, 0xB0, 0xB9, 0xF0, 0xF9, 0xFA, 0xFF]
        for length in 1...20 {
            for place in 0..<length {
                for other in others {
                    var bytes = Array(digits[..<length])
                    bytes[place] = other
                    XCTAssertNil(Timetoken(decimalDigits: bytes), "\(bytes) at \(place)")
                    let text = String(decoding: [UInt8(ascii: "=")] + bytes + [UInt8(ascii: "&")], as: UTF8.self)
                    if text.utf8.count == length + 2 {   // the byte stood for itself in UTF-8
                        XCTAssertNil(Timetoken(parsing: text.dropFirst().dropLast()), "\(text.debugDescription) at \(place)")
                    }
                }
            }
        }
    }
}
