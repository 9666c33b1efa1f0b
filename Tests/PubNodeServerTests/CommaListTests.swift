@testable import PubNodeServer
import XCTest

/// How a comma-separated list in a target is split into items.
final class CommaListTests: XCTestCase {
    func testItemsAreSplitOnCommasWithEmptyOnesDropped() {
        XCTAssertEqual("a".commaSeparatedItems(), ["a"])
        XCTAssertEqual("a,b,c".commaSeparatedItems(), ["a", "b", "c"])
        XCTAssertEqual(",a,,b,".commaSeparatedItems(), ["a", "b"])
        XCTAssertEqual("".commaSeparatedItems(), [])
        XCTAssertEqual(",,".commaSeparatedItems(), [])
    }

    func testMultiByteItemsStayWhole() {
        XCTAssertEqual("café,日本,🙂x".commaSeparatedItems(), ["café", "日本", "🙂x"])
        // A combining mark after a comma makes one character of the two, but the comma still
        // separates: the list is split as bytes, as a client wrote it.
        XCTAssertEqual("a,\u{301}b".commaSeparatedItems(), ["a", "\u{301}b"])
    }

    func testAnItemOfABridgedOrSlicedStringIsTheSame() {
        let long = String(repeating: "x", count: 40) + "," + String(repeating: "y", count: 3)
        XCTAssertEqual(long.commaSeparatedItems(), [String(repeating: "x", count: 40), "yyy"])
        let sliced = String("--a,b--".dropFirst(2).dropLast(2))
        XCTAssertEqual(sliced.commaSeparatedItems(), ["a", "b"])
    }
}
