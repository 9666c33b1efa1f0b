import PubNodeCore
@testable import PubNodeServer
import XCTest

/// The metrics port over real sockets: a second listener with `/metrics` and the probes only.
final class MetricsPortSocketTests: XCTestCase {
    func testTheMetricsPortServesMetricsWithoutATokenAndNothingElse() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.metricsPort = 0
        configuration.eventLoopThreads = 1
        let node = Node(adminToken: "admin-token-0123456789")
        let server = PubNodeHTTPServer(configuration: configuration, node: node)
        let port = try await server.start()
        let metricsPort = try XCTUnwrap(server.metricsPort)
        XCTAssertNotEqual(port, metricsPort)

        let main = try RawSocket(port: port)
        main.send("GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(main.response()?.status, 200)
        main.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(main.response()?.status, 401, "the main port asks for the admin token")

        let scraper = try RawSocket(port: metricsPort)
        scraper.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let scrape = try XCTUnwrap(scraper.response())
        XCTAssertEqual(scrape.status, 200)
        XCTAssertTrue(scrape.text.contains(#"pubnode_messages_published_total{keyset="demo",kind="message"} 1"#), scrape.text)
        XCTAssertTrue(scrape.text.contains("pubnode_open_connections 2"), "the main and the metrics connection")
        scraper.send("GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(scraper.response()?.status, 404)

        try await server.shutdown()
        XCTAssertEqual(server.operations.readiness.reasons, ["draining"])
    }
}
