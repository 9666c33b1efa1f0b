import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class PresenceStateTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    private func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    func testAnObjectIsKeptByteExactAndEmptyMeansNone() throws {
        XCTAssertEqual(text(try PresenceState.object(bytes(#"  {"big":12345678901234567890,"s":"é"} "#), limit: 100)),
                       #"{"big":12345678901234567890,"s":"é"}"#)
        XCTAssertNil(try PresenceState.object(bytes("{ }"), limit: 100))
    }

    func testNonObjectsAndBadJSONAreRefused() {
        for bad in ["[1]", "1", "\"s\"", "null", "{", "{\"a\":}", "", "\u{FF}"] {
            XCTAssertEqual(Fixture.pubNodeError { _ = try PresenceState.object(self.bytes(bad), limit: 100) },
                           .invalidState("state must be a JSON object"), bad)
        }
        XCTAssertEqual(Fixture.pubNodeError { _ = try PresenceState.object([0xFF, 0xFE], limit: 100) },
                       .invalidState("state must be a JSON object"))
    }

    func testSizeLimitIsInclusive() throws {
        let state = #"{"k":"\#(String(repeating: "x", count: 10))"}"#
        XCTAssertNotNil(try PresenceState.object(bytes(state), limit: state.utf8.count))
        XCTAssertEqual(Fixture.pubNodeError { _ = try PresenceState.object(self.bytes(state), limit: state.utf8.count - 1) },
                       .stateTooLarge(limit: state.utf8.count - 1))
    }

    func testKeyedStateSplitsByChannelWithEscapedNames() throws {
        let keyed = try PresenceState.keyed(bytes(#"{"a": {"x":[1,{"y":"},"}]} , "b\u00e9\"q":{"z":true},"c":{}}"#), limit: 100)
        XCTAssertEqual(keyed.count, 3)
        XCTAssertEqual(text(keyed["a"] ?? nil), #"{"x":[1,{"y":"},"}]}"#)
        XCTAssertEqual(text(keyed["bé\"q"] ?? nil), #"{"z":true}"#)
        XCTAssertEqual(keyed["c"], .some(nil), "an empty object clears the state")
        XCTAssertEqual(try PresenceState.keyed(bytes("{}"), limit: 10).count, 0)
        let pair = try PresenceState.keyed(bytes(#"{"\ud83d\ude00":{"a":1}}"#), limit: 100)
        XCTAssertEqual(Array(pair.keys), ["😀"])
    }

    func testKeyedStateRefusesNonObjectsAndOversizedMembers() {
        XCTAssertEqual(Fixture.pubNodeError { _ = try PresenceState.keyed(self.bytes("[]"), limit: 100) },
                       .invalidState("state must be a JSON object keyed by channel name"))
        XCTAssertEqual(Fixture.pubNodeError { _ = try PresenceState.keyed(self.bytes(#"{"a":1}"#), limit: 100) },
                       .invalidState("state for 'a' must be a JSON object"))
        XCTAssertEqual(Fixture.pubNodeError { _ = try PresenceState.keyed(self.bytes(#"{"a":{"b":"cccc"}}"#), limit: 5) },
                       .stateTooLarge(limit: 5))
    }
}
