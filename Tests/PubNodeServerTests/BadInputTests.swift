import PubNodeCore
import XCTest

final class BadInputTests: XCTestCase {
    let node = EmbeddedNode()

    private func assertObjectError(_ target: String, status: Int, contains text: String,
                                   file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try node.get(target, file: file, line: line)
        XCTAssertEqual(response.status, status, response.text, file: file, line: line)
        XCTAssertEqual(response.json["error"], .bool(true), response.text, file: file, line: line)
        XCTAssertEqual(response.json["status"], .number(String(status)), file: file, line: line)
        XCTAssertTrue(response.text.contains(text), "\(response.text) lacks \(text)", file: file, line: line)
    }

    private func assertPublishError(_ target: String, contains text: String,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try node.get(target, file: file, line: line)
        XCTAssertEqual(response.status, 400, response.text, file: file, line: line)
        XCTAssertEqual(response.json[0], .number("0"), response.text, file: file, line: line)
        XCTAssertTrue(response.json[1]?.stringValue?.contains(text) == true, "\(response.text) lacks \(text)",
                      file: file, line: line)
    }

    func testUnknownKeysAreRefusedNeverOK() throws {
        try assertPublishError("/publish/nope/demo/0/c/0/1", contains: "Invalid Key")
        try assertPublishError("/publish/demo/nope/0/c/0/1", contains: "Invalid Key")
        try assertPublishError("/signal/nope/nope/0/c/0/1", contains: "Invalid Key")
        try assertObjectError("/v2/subscribe/nope/c/0?tt=0", status: 400, contains: "Invalid Key")
        try assertObjectError("/v1/channel-registration/sub-key/nope/channel-group/g", status: 400, contains: "Invalid Key")
        try assertObjectError("/v2/presence/sub-key/nope/channel/c/leave", status: 400, contains: "Invalid Key")
    }

    func testInvalidJSONPayloadAndMetaAreRefused() throws {
        try assertPublishError("/publish/demo/demo/0/c/0/%7Bnope", contains: "Invalid JSON")
        try assertPublishError("/publish/demo/demo/0/c/0/hello", contains: "Invalid JSON")
        try assertPublishError("/publish/demo/demo/0/c/0/%FF%FE", contains: "Invalid")
        try assertPublishError("/publish/demo/demo/0/c/0/1?meta=%7Bbad", contains: "meta")
        let post = try XCTUnwrap(node.post("/publish/demo/demo/0/c/0", body: Array("[1,".utf8)))
        XCTAssertEqual(post.status, 400)
        XCTAssertEqual(post.json[1], .string("Invalid JSON"))
    }

    func testOversizeMessagesAreRefusedOverGetAndPostWhileNearLimitGetIsAccepted() throws {
        let nearLimit = "%22" + String(repeating: "a", count: 30_000) + "%22"
        XCTAssertEqual(try node.get("/publish/demo/demo/0/c/0/\(nearLimit)").status, 200,
                       "a ~30 KB request line must be accepted")
        let over = "%22" + String(repeating: "a", count: 33_000) + "%22"
        try assertPublishError("/publish/demo/demo/0/c/0/\(over)", contains: "Message Too Large")
        let body = Array(("\"" + String(repeating: "é", count: 6_000) + "\"").utf8)
        let post = try XCTUnwrap(node.post("/publish/demo/demo/0/c/0", body: body))
        XCTAssertEqual(post.status, 400, "12 KB of é is 36 KB URL-encoded, as PubNub counts it")
        XCTAssertEqual(post.json[1], .string("Message Too Large"))
    }

    func testOversizeBodyIsRefusedFromItsContentLengthAndTheConnectionClosed() throws {
        let connection = try node.connect()
        try connection.send("POST /publish/demo/demo/0/c/0 HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n{\"a\":")
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.json["error"], .bool(true))
        XCTAssertFalse(connection.isOpen)
    }

    func testHugeHeadersAreRefusedWithoutCrashing() throws {
        let connection = try node.connect()
        let huge = String(repeating: "a", count: 200_000)
        try? connection.send("GET /time/0 HTTP/1.1\r\nX-Big: \(huge)\r\n\r\n")
        let response = try connection.response()
        XCTAssertEqual(response?.status, 431)
        XCTAssertFalse(connection.isOpen)
    }

    func testInvalidNamesAreRefused() throws {
        try assertPublishError("/publish/demo/demo/0/a.*/0/1", contains: "wildcard")
        try assertPublishError("/publish/demo/demo/0/a%3Ab/0/1", contains: "forbidden")
        try assertPublishError("/publish/demo/demo/0/" + String(repeating: "c", count: 2049) + "/0/1", contains: "longer than")
        try assertPublishError("/publish/demo/demo/0//0/1", contains: "empty")
        try assertObjectError("/v2/subscribe/demo/a.b.c.*/0?tt=0", status: 400, contains: "wildcard")
        try assertObjectError("/v2/subscribe/demo/a%00b/0?tt=0", status: 400, contains: "forbidden")
        try assertObjectError("/v1/channel-registration/sub-key/demo/channel-group/g%2Ah?add=c", status: 400, contains: "group name")
        try assertObjectError("/v1/channel-registration/sub-key/demo/channel-group/g?add=c%5Cd", status: 400, contains: "channel name")
    }

    func testMalformedParametersAreRefused() throws {
        try assertObjectError("/v2/subscribe/demo/c/0?tt=abc", status: 400, contains: "tt")
        try assertObjectError("/v2/subscribe/demo/c/0?tt=-5", status: 400, contains: "tt")
        try assertObjectError("/v2/subscribe/demo/c/0?tt=0&heartbeat=x", status: 400, contains: "heartbeat")
        try assertObjectError("/v2/subscribe/demo/c/0?tt=0&state=%7B", status: 400, contains: "state")
        try assertObjectError("/v2/subscribe/demo/,/0?tt=0", status: 400, contains: "at least one channel")
        try assertObjectError("/v2/subscribe/demo/c%ZZ/0?tt=0", status: 400, contains: "percent")
        try assertPublishError("/publish/demo/demo/0/c/0/1?store=maybe", contains: "store")
        try assertPublishError("/publish/demo/demo/0/c/0/1?ttl=-1", contains: "ttl")
        try assertPublishError("/publish/demo/demo/0/c/0/1?custom_message_type=%21%21", contains: "custom_message_type")
    }

    func testSubscribeLimitsAreEnforced() throws {
        var limits = Limits()
        limits.maxChannelsPerSubscribe = 3
        limits.maxGroupsPerSubscribe = 1
        limits.maxChannelsPerGroup = 2
        let node = EmbeddedNode(limits: limits)
        let channels = try node.get("/v2/subscribe/demo/a,b,c,d/0?tt=0")
        XCTAssertEqual(channels.status, 400)
        XCTAssertTrue(channels.text.contains("Too many channels"), channels.text)
        let groups = try node.get("/v2/subscribe/demo/,/0?tt=0&channel-group=g1,g2")
        XCTAssertEqual(groups.status, 400)
        let full = try node.get("/v1/channel-registration/sub-key/demo/channel-group/g?add=a,b,c")
        XCTAssertEqual(full.status, 400)
        XCTAssertTrue(full.text.contains("Maximum channels per group"), full.text)
    }

    func testUnknownRoutesAnswer404WithJSON() throws {
        for target in ["/", "/nothing", "/publish/demo", "/v2/subscribe/demo", "/time", "/v2/presence/sub-key/demo/channel/c/nope"] {
            let response = try node.get(target)
            XCTAssertEqual(response.status, 404, target)
            XCTAssertEqual(response.json["error"], .bool(true), target)
        }
    }
}
