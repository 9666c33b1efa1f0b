import NIOCore
import PubNodeCore
import XCTest

final class ConnectionTests: XCTestCase {
    func testResponsesCarryBrowserHeadersAndOptionsPreflightSucceeds() throws {
        let node = EmbeddedNode()
        let response = try node.get("/time/0")
        XCTAssertEqual(response.headers["access-control-allow-origin"], "*")
        XCTAssertEqual(response.headers["content-type"], "application/json; charset=UTF-8")
        XCTAssertEqual(response.headers["cache-control"], "no-cache")
        let connection = try node.connect()
        try connection.send("OPTIONS /publish/demo/demo/0/c/0 HTTP/1.1\r\nHost: x\r\nOrigin: http://app\r\n\r\n")
        let preflight = try XCTUnwrap(connection.response())
        XCTAssertEqual(preflight.status, 200)
        XCTAssertEqual(preflight.headers["access-control-allow-origin"], "*")
        XCTAssertEqual(preflight.headers["access-control-allow-methods"], "GET, POST, PATCH, DELETE, OPTIONS")
        XCTAssertEqual(preflight.headers["access-control-allow-headers"]?.contains("Authorization"), true)
        XCTAssertNil(response.headers["access-control-allow-methods"], "only a preflight answers which methods may be used")
    }

    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\nGET /publish/demo/demo/0/k/0/1 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.response()?.status, 200)
        XCTAssertEqual(try connection.response()?.json[1], .string("Sent"))
        XCTAssertTrue(connection.isOpen)
    }

    func testConnectionCloseIsHonoured() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(try connection.response()?.headers["connection"], "close")
        XCTAssertFalse(connection.isOpen)
    }

    func testRequestPipelinedBehindAParkedSubscribeIsAnsweredAfterItInOrder() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("pipe")
        let connection = try node.connect()
        try connection.send("GET /v2/subscribe/demo/pipe/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try connection.response(), "the time request must wait behind the parked subscribe")
        try node.publish("pipe", #""first""#)
        let subscribe = try XCTUnwrap(connection.response())
        XCTAssertEqual(subscribe.json["m"]?[0]?["d"], .string("first"))
        let time = try XCTUnwrap(connection.response())
        XCTAssertEqual(time.json[0]?.stringValue?.count, 17)
        XCTAssertTrue(connection.isOpen)
    }

    /// Requests without a body are dispatched at their heads when they arrive, and queued as
    /// parts behind an outstanding answer: both kinds, with a body between them, keep their order.
    func testRequestsWithAndWithoutBodiesQueuedBehindAParkedPollAreAnsweredInOrder() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("pipe")
        let connection = try node.connect()
        try connection.send("GET /v2/subscribe/demo/pipe/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /publish/demo/demo/0/pipe/0 HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n\"second\""
            + "GET /publish/demo/demo/0/pipe/0/%22third%22 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        XCTAssertNil(try connection.response(), "everything waits behind the parked subscribe")
        try node.publish("pipe", #""first""#)
        XCTAssertEqual(try XCTUnwrap(connection.response()).json["m"]?[0]?["d"], .string("first"))
        XCTAssertEqual(try XCTUnwrap(connection.response()).json[0]?.stringValue?.count, 17, "the time")
        let second = try XCTUnwrap(connection.response())
        let third = try XCTUnwrap(connection.response())
        XCTAssertEqual([second.json[1], third.json[1]], [.string("Sent"), .string("Sent")])
        XCTAssertLessThan(try XCTUnwrap(second.json[2]?.stringValue), try XCTUnwrap(third.json[2]?.stringValue))
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.response()?.status, 200, "and one arriving after them at once")
        XCTAssertNil(try connection.response())
        let buffered = try XCTUnwrap(node.node.hub()).collect(Subscription(channels: ["pipe"]),
                                                               after: try XCTUnwrap(Timetoken(parsing: Substring(cursor))))
        XCTAssertEqual(buffered.deliveries.count, 3, "each published once")
    }

    func testHeadAnswersHeadersOnly() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try connection.send("HEAD /time/0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        connection.runLoop()
        var bytes: [UInt8] = []
        while let chunk = try connection.channel.readOutbound(as: ByteBuffer.self) { bytes += chunk.readableBytesView }
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"), text)
        XCTAssertTrue(text.hasSuffix("\r\n\r\n"), "no body after the headers: \(text)")
        XCTAssertTrue(text.contains("Content-Length: 19"), text)
    }

    func testHTTP10KeepAliveIsAnsweredInKind() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try connection.send("GET /time/0 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.headers["connection"], "keep-alive")
        XCTAssertTrue(connection.isOpen)
        try connection.send("GET /time/0 HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try connection.response()?.headers["connection"], "close")
        XCTAssertFalse(connection.isOpen)
    }
}
