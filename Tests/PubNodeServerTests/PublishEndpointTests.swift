import Foundation
import NIOCore
import PubNodeCore
import XCTest

final class PublishEndpointTests: XCTestCase {
    func testTimeAnswersSeventeenDigitTimetokenNearNow() throws {
        let node = EmbeddedNode()
        let response = try node.get("/time/0")
        XCTAssertEqual(response.status, 200)
        let text = try XCTUnwrap(response.json[0]?.stringValue)
        XCTAssertEqual(text.count, 17)
        let now = UInt64(Date().timeIntervalSince1970 * 10_000_000)
        XCTAssertLessThan(max(UInt64(text)!, now) - min(UInt64(text)!, now), 50_000_000)
    }

    func testGetPublishAnswersSentWithTimetokenAndDeliversByteExactPayload() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("room")
        let payload = #"{"n":12345678901234567890123,"s":"h\u00e9 ✓"}"#
        let timetoken = try node.publish("room", payload, query: "&meta=%7B%22k%22%3A1%7D")
        let response = try node.get("/v2/subscribe/demo/room/0?tt=\(cursor)")
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, timetoken)
        XCTAssertTrue(response.text.contains(#""d":\#(payload)"#), response.text)
        let message = try XCTUnwrap(response.json["m"]?[0])
        XCTAssertEqual(message["c"], .string("room"))
        XCTAssertEqual(message["i"], .string("tester"))
        XCTAssertEqual(message["k"], .string("demo"))
        XCTAssertEqual(message["p"]?["t"], .string(timetoken))
        XCTAssertEqual(message["u"]?["k"], .number("1"))
        XCTAssertNil(message["e"])
    }

    func testPostPublishAcceptsJSONBodyAndGzip() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("p")
        let plain = try XCTUnwrap(node.post("/publish/demo/demo/0/p/0?uuid=u1", body: Array(#"{"a":[1,2]}"#.utf8)))
        XCTAssertEqual(plain.status, 200, plain.text)
        XCTAssertEqual(plain.json[1], .string("Sent"))
        let zipped = try XCTUnwrap(node.post("/publish/demo/demo/0/p/0", body: Gzip.compress(#""zipped""#),
                                             headers: ["Content-Encoding": "gzip"]))
        XCTAssertEqual(zipped.status, 200, zipped.text)
        let response = try node.get("/v2/subscribe/demo/p/0?tt=\(cursor)")
        let payloads = response.json["m"]!.arrayValue.map { $0["d"] }
        XCTAssertEqual(payloads, [.object(["a": .array([.number("1"), .number("2")])]), .string("zipped")])
    }

    func testSignalIsDeliveredWithTypeOneAndLimitedTo30Bytes() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("s")
        let ok = try node.get("/signal/demo/demo/0/s/0/%22typing%22?uuid=a")
        XCTAssertEqual(ok.status, 200)
        let response = try node.get("/v2/subscribe/demo/s/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?[0]?["e"], .number("1"))
        XCTAssertEqual(response.json["m"]?[0]?["d"], .string("typing"))
        let big = try node.get("/signal/demo/demo/0/s/0/%22" + String(repeating: "x", count: 29) + "%22")
        XCTAssertEqual(big.status, 400)
        XCTAssertEqual(big.json[0], .number("0"))
        XCTAssertEqual(big.json[1], .string("Signal size too large"))
    }

    func testFireAnswersButIsNeverDelivered() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("f")
        let fired = try node.get("/publish/demo/demo/0/f/0/%22secret%22?store=0&norep=true")
        XCTAssertEqual(fired.status, 200)
        XCTAssertEqual(fired.json[1], .string("Sent"))
        let firedSDKStyle = try node.get("/publish/demo/demo/0/f/0/%22secret2%22?store=0&norep=1")
        XCTAssertEqual(firedSDKStyle.status, 200)
        try node.publish("f", #""visible""#)
        let response = try node.get("/v2/subscribe/demo/f/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]!.arrayValue.map { $0["d"] }, [.string("visible")])
    }

    func testPublishWithoutStoreIsStillDelivered() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("ns")
        try node.publish("ns", "1", query: "&store=0")
        let response = try node.get("/v2/subscribe/demo/ns/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?.arrayValue.count, 1)
    }

    func testEncodedSlashCommaAndStarInChannelSegmentsAreDecodedAfterSplitting() throws {
        let node = EmbeddedNode()
        let bad = try node.get("/publish/demo/demo/0/a%2Fb/0/1")
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.text.contains("forbidden character"), bad.text)
        let cursor = try node.handshake("caf%C3%A9")
        try node.publish("caf%C3%A9", "2")
        let response = try node.get("/v2/subscribe/demo/caf%C3%A9/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?[0]?["c"], .string("café"))
    }
}

/// gzip via the system's zlib-backed `gzip` command, to build compressed request bodies.
enum Gzip {
    static func compress(_ text: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }
}
