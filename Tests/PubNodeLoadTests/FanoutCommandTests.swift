import XCTest

@testable import pubnode_load

/// The fan-out command's options are checked before anything connects.
final class FanoutCommandTests: XCTestCase {
    /// `--hold` keeps the subscribers for a while after the last delivery; none by default.
    func testHoldIsParsedAndDefaultsToNone() throws {
        XCTAssertEqual(try FanoutCommand.parse([]).hold, 0)
        XCTAssertEqual(try FanoutCommand.parse(["--hold", "2.5"]).hold, 2.5)
    }

    /// A negative or overlong hold is refused with the option named.
    func testHoldOutOfRangeIsRefused() {
        for value in ["-1", "601"] {
            XCTAssertThrowsError(try FanoutCommand.parse(["--hold=\(value)"])) { error in
                XCTAssertTrue(FanoutCommand.message(for: error).contains("--hold"), "\(value): \(error)")
            }
        }
    }
}
