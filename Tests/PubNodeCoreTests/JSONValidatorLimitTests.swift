import XCTest
@testable import PubNodeCore

/// The validator's bounds: nesting depth, number length and the count of values.
final class JSONValidatorLimitTests: XCTestCase {
    func testTheCountOfValuesIsBounded() {
        let validator = JSONValidator(maxElements: 5)
        XCTAssertTrue(validator.isValid(Array("[1,2,3,4]".utf8)), "the array and four numbers")
        XCTAssertFalse(validator.isValid(Array("[1,2,3,4,5]".utf8)))
        XCTAssertTrue(validator.isValid(Array(#"{"a":{"b":[true,null]}}"#.utf8)), "five values")
        XCTAssertFalse(validator.isValid(Array(#"{"a":{"b":[true,null,1]}}"#.utf8)))
        let dense = "[" + Array(repeating: "0", count: 16_000).joined(separator: ",") + "]"
        XCTAssertTrue(JSONValidator().isValid(Array(dense.utf8)), "the densest 32 KiB message fits the default")
        let denser = "[" + Array(repeating: "0", count: 20_000).joined(separator: ",") + "]"
        XCTAssertFalse(JSONValidator().isValid(Array(denser.utf8)))
    }

    func testDepthAndNumberLengthStayBounded() {
        XCTAssertTrue(JSONValidator().isValid(Array((String(repeating: "[", count: 256) + String(repeating: "]", count: 256)).utf8)))
        XCTAssertFalse(JSONValidator().isValid(Array((String(repeating: "[", count: 257) + String(repeating: "]", count: 257)).utf8)))
        XCTAssertTrue(JSONValidator().isValid(Array(String(repeating: "9", count: 1000).utf8)))
        XCTAssertFalse(JSONValidator().isValid(Array(String(repeating: "9", count: 1001).utf8)))
    }
}
