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
        for value: UInt64 in [0, 7, 10, 17_000_000_001_234_567, UInt64.max] {
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
}
