import NIOCore
import PubNodeCore
import XCTest

/// How request bodies are framed and encoded, through the production pipeline: chunked bodies,
/// zlib and gzip bodies, pipelined requests, and the refusals for what the node does not read.
final class RequestFramingTests: XCTestCase {
    func testAChunkedPublishIsDelivered() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("chunked")
        let connection = try node.connect()
        try connection.send("POST /publish/demo/demo/0/chunked/0?uuid=u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        try connection.send("4\r\n{\"a\"\r\n")
        XCTAssertNil(try connection.response(), "answered before the last chunk")
        try connection.send("3;x=y\r\n:1}\r\n0\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(connection.response()).status, 200)
        let response = try node.get("/v2/subscribe/demo/chunked/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?[0]?["d"], .object(["a": .number("1")]))
    }

    func testADeflateBodyIsInflated() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("z")
        let zipped = try XCTUnwrap(node.post("/publish/demo/demo/0/z/0", body: Self.zlibStored(#""deflated""#),
                                             headers: ["Content-Encoding": "deflate"]))
        XCTAssertEqual(zipped.status, 200, zipped.text)
        let response = try node.get("/v2/subscribe/demo/z/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?[0]?["d"], .string("deflated"))
    }

    func testACompressedBodyThatInflatesPastTheBodyLimitIsRefused() throws {
        let node = EmbeddedNode()
        let bomb = try Gzip.compress("\"" + String(repeating: "a", count: 300_000) + "\"")
        XCTAssertLessThan(bomb.count, 2_000)
        let refused = try XCTUnwrap(node.post("/publish/demo/demo/0/z/0", body: bomb, headers: ["Content-Encoding": "gzip"]))
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.text.contains("Invalid gzip body or body too large"), refused.text)
        let broken = try XCTUnwrap(node.post("/publish/demo/demo/0/z/0", body: Array(try Gzip.compress("\"x\"").dropLast(4)),
                                             headers: ["Content-Encoding": "gzip"]))
        XCTAssertEqual(broken.status, 400, "a truncated gzip stream")
    }

    func testUnreadableEncodingsAndVersionsAreRefusedInPubNubsShape() throws {
        let node = EmbeddedNode()
        let brotli = try XCTUnwrap(node.post("/publish/demo/demo/0/z/0", body: [1, 2], headers: ["Content-Encoding": "br"]))
        XCTAssertEqual(brotli.status, 415)
        XCTAssertEqual(brotli.json["error"], .bool(true))
        for (head, status) in [("GET /time/0 HTTP/2.0\r\n\r\n", 505), ("GET /time/0 HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400),
                               ("POST /publish/demo/demo/0/c/0 HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
                               ("POST /publish/demo/demo/0/c/0 HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501)] {
            let connection = try node.connect()
            try connection.send(head)
            let response = try XCTUnwrap(connection.response(), head)
            XCTAssertEqual(response.status, status, head)
            XCTAssertNotNil(response.json["message"]?.stringValue, head)
            XCTAssertFalse(connection.isOpen, "closed after a refused head: \(head)")
        }
    }

    func testPipelinedRequestsAreAnsweredInOrderOnOneConnection() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try connection.send("GET /publish/demo/demo/0/p/0/1 HTTP/1.1\r\n\r\nPOST /publish/demo/demo/0/p/0 HTTP/1.1\r\n"
            + "Content-Length: 1\r\n\r\n2GET /time/0 HTTP/1.1\r\n\r\n")
        let answers = try (0..<3).map { _ in try XCTUnwrap(connection.response()) }
        XCTAssertEqual(answers.map(\.status), [200, 200, 200])
        XCTAssertEqual(answers[0].json[1], .string("Sent"))
        XCTAssertEqual(answers[1].json[1], .string("Sent"))
        XCTAssertTrue(connection.isOpen)
    }

    func testConcatenatedGzipMembersAndXGzipAreInflatedAndTrailingBytesRefused() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("members")
        let members = try Gzip.compress("\"ab") + Gzip.compress("c\"")
        let joined = try XCTUnwrap(node.post("/publish/demo/demo/0/members/0", body: members,
                                             headers: ["Content-Encoding": "x-gzip"]))
        XCTAssertEqual(joined.status, 200, joined.text)
        let response = try node.get("/v2/subscribe/demo/members/0?tt=\(cursor)")
        XCTAssertEqual(response.json["m"]?[0]?["d"], .string("abc"))
        let trailing = try XCTUnwrap(node.post("/publish/demo/demo/0/members/0", body: Self.zlibStored("1") + [0x00, 0x01],
                                               headers: ["Content-Encoding": "deflate"]))
        XCTAssertEqual(trailing.status, 400, "bytes after the zlib stream")
    }

    func testABodyInflatingToExactlyTheBodyLimitIsAcceptedAndOneByteMoreIsNot() throws {
        var limits = Limits()
        limits.maxBodyBytes = 2_000
        let node = EmbeddedNode(limits: limits)
        let exact = try Gzip.compress("\"" + String(repeating: "a", count: 1_998) + "\"")
        let accepted = try XCTUnwrap(node.post("/publish/demo/demo/0/l/0", body: exact, headers: ["Content-Encoding": "gzip"]))
        XCTAssertEqual(accepted.status, 200, accepted.text)
        let over = try Gzip.compress("\"" + String(repeating: "a", count: 1_999) + "\"")
        let refused = try XCTUnwrap(node.post("/publish/demo/demo/0/l/0", body: over, headers: ["Content-Encoding": "gzip"]))
        XCTAssertEqual(refused.status, 400)
    }

    func testNothingAfterTheConnectionsLastRequestIsHandled() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("last")
        for last in ["GET /time/0 HTTP/1.1\r\nConnection: close\r\n\r\n",
                     "GET /time/0 HTTP/1.0\r\n\r\n",
                     "GET /time/0 HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"] {
            let connection = try node.connect()
            try connection.send(last + "GET /publish/demo/demo/0/last/0/%22smuggled%22 HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try connection.response()?.status, 200, last)
            XCTAssertNil(try connection.response(), "one answer only: \(last)")
            XCTAssertFalse(connection.isOpen)
        }
        try node.publish("last", #""after""#)
        let response = try node.get("/v2/subscribe/demo/last/0?tt=\(cursor)")
        XCTAssertEqual(response.messagePayloads, [.string("after")], "no request after a last one ran")
    }

    func testTooManyRequestsQueuedBehindAParkedPollCloseTheConnection() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("queue")
        let connection = try node.connect()
        try connection.send("GET /v2/subscribe/demo/queue/0?tt=\(cursor) HTTP/1.1\r\n\r\n")
        try connection.send(String(repeating: "GET /time/0 HTTP/1.1\r\n\r\n", count: 20))
        XCTAssertTrue(connection.isOpen, "40 parts queued: within the bound")
        try connection.send(String(repeating: "GET /time/0 HTTP/1.1\r\n\r\n", count: 20))
        XCTAssertFalse(connection.isOpen, "80 parts queued: closed")
    }

    /// `text` as a zlib stream (RFC 1950) of one stored deflate block.
    static func zlibStored(_ text: String) -> [UInt8] {
        let data = Array(text.utf8)
        let length = UInt16(data.count)
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        return [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            + data + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    }
}
