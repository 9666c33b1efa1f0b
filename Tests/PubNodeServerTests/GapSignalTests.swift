import PubNodeCore
import XCTest

/// The gap signal: a subscribe answer names the channels whose buffers dropped messages the
/// subscriber never received, and where the drop ended.
final class GapSignalTests: XCTestCase {
    func testAnOverrunCursorIsToldWhatItMissed() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("gap")
        var timetokens: [String] = []
        for index in 0..<130 { timetokens.append(try node.publish("gap", String(index))) }
        let response = try node.get("/v2/subscribe/demo/gap/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?.arrayValue.first?["d"], .number("30"), "the buffer holds the newest 100")
        XCTAssertEqual(response.json["missed"], .array([.object(["channel": .string("gap"),
                                                                  "through": .string(timetokens[29])])]))
    }

    func testACursorWithinTheBufferHasNoGapField() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("whole")
        for index in 0..<100 { try node.publish("whole", String(index)) }
        let response = try node.get("/v2/subscribe/demo/whole/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?.arrayValue.count, 100)
        XCTAssertNil(response.json["missed"], "nothing was dropped after the cursor")
        let last = try XCTUnwrap(response.json["t"]?["t"]?.stringValue)
        for index in 0..<150 { try node.publish("whole", String(index)) }
        let caughtUp = try node.get("/v2/subscribe/demo/whole/0?tt=\(last)")
        XCTAssertNotNil(caughtUp.json["missed"], "150 more overran a cursor that had seen everything before")
    }

    func testMultiplexedAnswersNameOnlyTheChannelsThatOverran() throws {
        let node = EmbeddedNode()
        XCTAssertEqual(try node.get("/v1/channel-registration/sub-key/demo/channel-group/gg?add=busy").status, 200)
        let cursor = try node.handshake("quiet", query: "&channel-group=gg")
        try node.publish("quiet", "1")
        var busy: [String] = []
        for index in 0..<105 { busy.append(try node.publish("busy", String(index))) }
        let response = try node.get("/v2/subscribe/demo/quiet/0?tt=\(cursor)&channel-group=gg")
        XCTAssertEqual(response.json["missed"], .array([.object(["channel": .string("busy"),
                                                                  "through": .string(busy[4])])]),
                       "the group's member overran once, named once; the quiet channel did not")
    }

    func testAParkedSubscriberWokenAfterAnOverrunIsToldToo() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("late")
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/late/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try subscriber.response())
        // Published without running the subscriber's loop: its wake is answered afterwards.
        for index in 0..<101 {
            _ = try node.node.publishNow(PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: "late",
                                                        payload: Array(String(index).utf8)))
        }
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["m"]?.arrayValue.first?["d"], .number("1"))
        XCTAssertEqual(response.json["missed"]?[0]?["channel"], .string("late"))
    }
}
