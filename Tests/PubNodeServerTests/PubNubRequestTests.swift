import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import XCTest

final class PubNubRequestTests: XCTestCase {
    func testPathIsSplitBeforeDecodingSoEncodedSeparatorsStayInsideNames() throws {
        let request = try PubNubRequest(method: .GET, uri: "/publish/demo/demo/0/a%2Fb%2Cc%2A/0/%22x%2Fy%22?uuid=u")
        XCTAssertEqual(request.segments, ["publish", "demo", "demo", "0", "a/b,c*", "0", "\"x/y\""])
        XCTAssertEqual(request.query["uuid"], "u")
    }

    func testEmptySegmentsAndTrailingSlashesAreKept() throws {
        XCTAssertEqual(try PubNubRequest(method: .GET, uri: "/").segments, [""])
        XCTAssertEqual(try PubNubRequest(method: .GET, uri: "/a//b/").segments, ["a", "", "b", ""])
        XCTAssertEqual(try PubNubRequest(method: .GET, uri: "/v2/subscribe/demo/,/0").segments[3], ",")
    }

    func testQueryParsing() throws {
        let request = try PubNubRequest(method: .GET, uri: "/time/0?a=1&b=&c&&d=x%26y%3Dz&a=2&e=p+q")
        XCTAssertEqual(request.query["a"], "2", "a repeated name keeps its last value")
        XCTAssertEqual(request.query["b"], "")
        XCTAssertEqual(request.query["c"], "")
        XCTAssertEqual(request.query["d"], "x&y=z")
        XCTAssertEqual(request.query["e"], "p+q", "plus is literal")
        XCTAssertEqual(request.query.dictionary.count, 5)
        XCTAssertEqual(request.query.pairs.map(\.name), ["a", "b", "c", "d", "a", "e"], "kept in order")
        XCTAssertNil(request.query["f"])
    }

    func testMalformedEscapesAndInvalidUTF8AreRefused() {
        for uri in ["/a%2", "/a%zz", "/a%FF", "/time/0?x=%", "/time/0?%E2%82=1"] {
            XCTAssertThrowsError(try PubNubRequest(method: .GET, uri: uri), uri)
        }
        XCTAssertEqual(try PubNubRequest(method: .GET, uri: "/caf%C3%A9").segments, ["café"])
    }
}
