@testable import PubNodeCore
import XCTest

/// The operator's token is compared without an early exit, even when the lengths differ.
final class AdminTokenComparisonTests: XCTestCase {
    func testEqualityIsExactWhateverTheLengths() {
        XCTAssertTrue(NodeAuthorizer.constantTimeEqual("0123456789abcdef", "0123456789abcdef"))
        XCTAssertFalse(NodeAuthorizer.constantTimeEqual("0123456789abcdef", "0123456789abcdeg"))
        XCTAssertFalse(NodeAuthorizer.constantTimeEqual("0123456789abcdef", "0123456789abcdef0"))
        XCTAssertFalse(NodeAuthorizer.constantTimeEqual("0123456789abcdef", ""))
        XCTAssertFalse(NodeAuthorizer.constantTimeEqual("abc", "abc\u{0}"), "a zero byte past the end is still a difference")
        XCTAssertTrue(NodeAuthorizer.constantTimeEqual("", ""))
    }
}
