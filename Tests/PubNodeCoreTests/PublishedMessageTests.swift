import Foundation
import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class PublishedMessageTests: XCTestCase {
    private func text(_ message: PublishedMessage) -> String { String(decoding: message.envelope, as: UTF8.self) }

    func testMinimalEnvelope() {
        let message = PublishedMessage(draft: PublishDraft(channel: "ch", payload: Array("1".utf8)), timetoken: Timetoken(123),
                                       subscribeKey: "demo", region: 4, publishedAtNanoseconds: 99)
        XCTAssertEqual(text(message), "{\"a\":\"0\",\"f\":0,\"p\":{\"t\":\"123\",\"r\":4},\"k\":\"demo\",\"c\":\"ch\",\"d\":1")
        XCTAssertNil(message.meta)
        XCTAssertEqual(Array(message.payload), Array("1".utf8))
        XCTAssertEqual(message.publishedAtNanoseconds, 99)
        XCTAssertEqual(message.timetoken, Timetoken(123))
    }

    func testRegionsAreWrittenAsTheirDigits() {
        for (region, digits) in [(0, "0"), (7, "7"), (10, "10"), (2_147_483_647, "2147483647"), (-3, "-3")] {
            let message = PublishedMessage(draft: PublishDraft(channel: "ch", payload: Array("1".utf8)), timetoken: Timetoken(5),
                                           subscribeKey: "demo", region: region, publishedAtNanoseconds: 0)
            XCTAssertEqual(text(message), "{\"a\":\"0\",\"f\":0,\"p\":{\"t\":\"5\",\"r\":\(digits)},\"k\":\"demo\",\"c\":\"ch\",\"d\":1")
        }
    }

    func testLongNamesGoInAsTheyAreOrEscaped() {
        // Longer than a small string, so read from the string's own storage.
        let channel = String(repeating: "ü-channel.", count: 8)
        let publisher = String(repeating: "x", count: 40) + "\"q"
        let message = PublishedMessage(draft: PublishDraft(channel: channel, payload: Array("2".utf8), publisher: publisher),
                                       timetoken: Timetoken(6), subscribeKey: "demo", region: 1, publishedAtNanoseconds: 0)
        XCTAssertTrue(text(message).contains("\"c\":\"\(channel)\""), text(message))
        XCTAssertTrue(text(message).contains("\"i\":\"\(String(repeating: "x", count: 40))\\\"q\""), text(message))
    }

    func testClosedEnvelopeIsAJSONObjectWithEveryField() throws {
        let draft = PublishDraft(channel: "room.1", payload: Array("{\"n\":[1,2]}".utf8), meta: Array("{\"m\":\"x\"}".utf8),
                                 publisher: "alice", kind: .signal, customMessageType: "typ")
        let message = PublishedMessage(draft: draft, timetoken: Timetoken(17_000_000_000_000_001), subscribeKey: "sub-c-1",
                                       region: 2, publishedAtNanoseconds: 0)
        let closed = message.envelope + Array("}".utf8)
        XCTAssertTrue(JSONValidator().isValid(closed))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(closed)) as? [String: Any])
        XCTAssertEqual(object["a"] as? String, "0")
        XCTAssertEqual((object["f"] as? NSNumber)?.intValue, 0)
        XCTAssertEqual(object["i"] as? String, "alice")
        let p = try XCTUnwrap(object["p"] as? [String: Any])
        XCTAssertEqual(p["t"] as? String, "17000000000000001")
        XCTAssertEqual((p["r"] as? NSNumber)?.intValue, 2)
        XCTAssertEqual(object["k"] as? String, "sub-c-1")
        XCTAssertEqual(object["c"] as? String, "room.1")
        XCTAssertEqual(((object["d"] as? [String: Any])?["n"] as? [NSNumber])?.map(\.intValue), [1, 2])
        XCTAssertEqual((object["u"] as? [String: Any])?["m"] as? String, "x")
        XCTAssertEqual((object["e"] as? NSNumber)?.intValue, 1)
        XCTAssertEqual(object["cmt"] as? String, "typ")
        XCTAssertEqual(Array(message.meta ?? []), Array("{\"m\":\"x\"}".utf8))
    }

    func testStringsAreEscapedInTheEnvelope() throws {
        let draft = PublishDraft(channel: "ch", payload: Array("0".utf8), publisher: "a\"b\\c\nd\u{1}")
        let message = PublishedMessage(draft: draft, timetoken: Timetoken(1), subscribeKey: "k\"ey", region: 1,
                                       publishedAtNanoseconds: 0)
        XCTAssertTrue(text(message).contains("\"i\":\"a\\\"b\\\\c\\nd\\u0001\""), text(message))
        XCTAssertTrue(text(message).contains("\"k\":\"k\\\"ey\""), text(message))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(message.envelope + Array("}".utf8))) as? [String: Any])
        XCTAssertEqual(object["i"] as? String, "a\"b\\c\nd\u{1}")
    }

    func testJSONTextEscaping() {
        XCTAssertEqual(JSONText.string("plain"), "\"plain\"")
        XCTAssertEqual(JSONText.string(""), "\"\"")
        XCTAssertEqual(JSONText.string("q\"b\\"), "\"q\\\"b\\\\\"")
        XCTAssertEqual(JSONText.string("\n\r\t"), "\"\\n\\r\\t\"")
        XCTAssertEqual(JSONText.string("\u{0}\u{8}\u{C}\u{1F}"), "\"\\u0000\\u0008\\u000c\\u001f\"")
        XCTAssertEqual(JSONText.string("é😀/\u{7F}"), "\"é😀/\u{7F}\"")
        var out = Array("x".utf8)
        JSONText.appendString("y", to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "x\"y\"")
    }

    func testJSONTextOutputRoundTripsEveryControlCharacter() throws {
        let all = String(String.UnicodeScalarView((0..<0x80).compactMap(Unicode.Scalar.init)))
        let encoded = JSONText.string(all)
        XCTAssertTrue(JSONValidator().isValid(Array(encoded.utf8)))
        let decoded = try JSONSerialization.jsonObject(with: Data(encoded.utf8), options: [.fragmentsAllowed]) as? String
        XCTAssertEqual(decoded, all)
    }
}
