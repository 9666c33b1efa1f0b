import NIOCore
@testable import PubNodeServer
import XCTest

/// `HTTPRequestParser.takeEnd()`: a request without a body ends at its head, so a caller can take
/// the end with it; a request whose body is still to come gives none, and one whose body has been
/// read gives its end as `next()` would.
final class HTTPRequestParserTakeEndTests: XCTestCase {
    private func parser(_ text: String) -> HTTPRequestParser {
        var parser = HTTPRequestParser(maxHeadBytes: 1024)
        parser.append(ByteBuffer(string: text))
        return parser
    }

    private func headURI(_ parser: inout HTTPRequestParser) throws -> String? {
        guard case .head(let head) = try parser.next() else { return nil }
        return head.uri
    }

    func testPipelinedRequestsWithoutBodiesEndAtTheirHeads() throws {
        var parser = parser("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nContent-Length: 0\r\n\r\nHEAD /c HTTP/1.1\r\n\r\n")
        XCTAssertFalse(parser.takeEnd(), "no head read yet")
        for uri in ["/a", "/b", "/c"] {
            XCTAssertEqual(try headURI(&parser), uri)
            XCTAssertTrue(parser.takeEnd(), uri)
            XCTAssertFalse(parser.takeEnd(), "taken once")
        }
        XCTAssertNil(try parser.next(), "no `.end` left behind")
        XCTAssertEqual(parser.bufferedBytes, 0)
        XCTAssertFalse(parser.hasUnfinishedRequest)
    }

    func testARequestWithABodyGivesNoEndAtItsHead() throws {
        var parser = parser("POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"
            + "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\nGET /c HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try headURI(&parser), "/a")
        XCTAssertFalse(parser.takeEnd(), "its body is still to come")
        guard case .body(let body) = try parser.next() else { return XCTFail("no body") }
        XCTAssertEqual(String(buffer: body), "{}")
        XCTAssertTrue(parser.takeEnd(), "after the body's last part its end is next, and taken")

        XCTAssertEqual(try headURI(&parser), "/b")
        XCTAssertFalse(parser.takeEnd(), "chunked")
        guard case .body(let chunk) = try parser.next() else { return XCTFail("no chunk") }
        XCTAssertEqual(String(buffer: chunk), "[]")
        guard case .end = try parser.next() else { return XCTFail("no end") }
        XCTAssertFalse(parser.takeEnd(), "after `.end`: nothing to take")

        XCTAssertEqual(try headURI(&parser), "/c", "the next request reads as before")
        XCTAssertTrue(parser.takeEnd())
    }

    func testTheLastRequestsEndClosesTheParser() throws {
        var parser = parser("GET /a HTTP/1.1\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try headURI(&parser), "/a")
        XCTAssertTrue(parser.takeEnd())
        XCTAssertNil(try parser.next(), "nothing is read after the connection's last request")
        parser.append(ByteBuffer(string: "GET /c HTTP/1.1\r\n\r\n"))
        XCTAssertNil(try parser.next())
        XCTAssertEqual(parser.bufferedBytes, 0)
    }

    func testAHeadSplitOverReadsEndsWithItsLastByte() throws {
        var parser = parser("GET /a HTTP/1.1\r\nHost: x\r\n")
        XCTAssertNil(try parser.next())
        XCTAssertFalse(parser.takeEnd(), "the head is not complete")
        parser.append(ByteBuffer(string: "\r\n"))
        XCTAssertEqual(try headURI(&parser), "/a")
        XCTAssertTrue(parser.takeEnd())
        XCTAssertNil(try parser.next())
    }
}
