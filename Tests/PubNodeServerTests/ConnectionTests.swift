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
        XCTAssertNotNil(preflight.headers["access-control-allow-methods"])
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
}
