import Foundation
import NIOCore
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Per-client connection and request-rate limits through the production pipeline.
final class ClientLimitsTests: XCTestCase {
    private let tooMany = #"{"status":429,"error":true,"message":"Too many requests.","service":"Rate Limiter"}"#
    private let token = "0123456789abcdef"

    private func request(_ target: String, method: String = "GET", headers: String = "") -> String {
        "\(method) \(target) HTTP/1.1\r\nHost: x\r\n\(headers)\r\n"
    }

    func testTheRequestOverTheRateIsAnswered429WithRetryAfterAndTheConnectionStaysUsable() throws {
        let clock = ManualClock()
        let embedded = EmbeddedNode(clientLimits: ClientLimits(requestsPerSecond: 3, clock: clock))
        let connection = try embedded.connect()
        for _ in 0..<3 {
            try connection.send(request("/v2/subscribe/demo/c/0?tt=0"))
            XCTAssertEqual(try connection.response()?.status, 200)
        }
        try connection.send(request("/v2/subscribe/demo/c/0?tt=0"))
        let refused = try XCTUnwrap(connection.response())
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.headers["retry-after"], "1")
        XCTAssertEqual(refused.text, tooMany)
        XCTAssertNotEqual(refused.headers["connection"], "close")
        XCTAssertTrue(connection.isOpen)

        let other = try embedded.connect()
        try other.send(request("/publish/demo/demo/0/c/0/1"))
        XCTAssertEqual(try other.response()?.status, 429, "the limit is per address, not per connection")

        clock.advance(seconds: 1)
        try connection.send(request("/v2/subscribe/demo/c/0?tt=0"))
        XCTAssertEqual(try connection.response()?.status, 200, "a second later the client is admitted again")
        XCTAssertEqual(embedded.router.clientLimits.snapshot().refusedRequests, 2)
    }

    func testRetryAfterSaysWhenATokenIsBack() throws {
        let clock = ManualClock()
        let embedded = EmbeddedNode(clientLimits: ClientLimits(requestsPerSecond: 0.2, clock: clock))
        XCTAssertEqual(try embedded.get("/v2/subscribe/demo/c/0?tt=0").status, 200)
        clock.advance(seconds: 1)
        let refused = try embedded.get("/v2/subscribe/demo/c/0?tt=0")
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.headers["retry-after"], "4", "one request every five seconds, one of them gone")
    }

    func testTimeAndOptionsAreNeverLimited() throws {
        let embedded = EmbeddedNode(clientLimits: ClientLimits(requestsPerSecond: 1, clock: ManualClock()))
        let connection = try embedded.connect()
        for _ in 0..<20 {
            try connection.send(request("/time/0"))
            XCTAssertEqual(try connection.response()?.status, 200)
            try connection.send(request("/v2/subscribe/demo/c/0", method: "OPTIONS"))
            XCTAssertEqual(try connection.response()?.status, 200)
        }
        try connection.send(request("/v2/subscribe/demo/c/0?tt=0"))
        XCTAssertEqual(try connection.response()?.status, 200, "time and OPTIONS took no token")
        try connection.send(request("/v2/subscribe/demo/c/0?tt=0"))
        XCTAssertEqual(try connection.response()?.status, 429)
        try connection.send(request("/time/0"))
        XCTAssertEqual(try connection.response()?.status, 200, "not even for a client over its rate")
    }

    func testAConnectionOverTheLimitIsAnswered429AndClosedAndCountsAreReleasedOnce() throws {
        let limits = ClientLimits(maxConnections: 1)
        let embedded = EmbeddedNode(clientLimits: limits)
        let first = try embedded.connect()
        XCTAssertEqual(limits.openConnections(from: "127.0.0.1"), 1)
        let second = try embedded.connect()
        try second.send(request("/v2/subscribe/demo/c/0?tt=0"))
        let refused = try XCTUnwrap(second.response())
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.headers["retry-after"], "1")
        XCTAssertEqual(refused.headers["connection"], "close")
        XCTAssertEqual(refused.text, tooMany)
        second.runLoop()
        XCTAssertFalse(second.isOpen)
        XCTAssertEqual(limits.openConnections(from: "127.0.0.1"), 1, "the refused connection held no count")

        let timeOnly = try embedded.connect()
        try timeOnly.send(request("/time/0"))
        let time = try XCTUnwrap(timeOnly.response())
        XCTAssertEqual(time.status, 200, "/time/0 is answered even over the limit")
        XCTAssertEqual(time.headers["connection"], "close")
        timeOnly.runLoop()
        XCTAssertFalse(timeOnly.isOpen)

        try first.send(request("/v2/subscribe/demo/c/0?tt=0"))
        XCTAssertEqual(try first.response()?.status, 200)
        _ = try first.channel.finish()
        XCTAssertEqual(limits.openConnections(from: "127.0.0.1"), 0, "released when it closed, once")
        let third = try embedded.connect()
        try third.send(request("/v2/subscribe/demo/c/0?tt=0"))
        XCTAssertEqual(try third.response()?.status, 200)
        XCTAssertEqual(limits.openConnections(from: "127.0.0.1"), 1)
        XCTAssertEqual(limits.snapshot().refusedConnections, 2)
    }

    func testTheConnectionLimitOverRealSockets() async throws {
        let node = Node()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 1
        configuration.maxConnectionsPerClient = 1
        let server = PubNodeHTTPServer(configuration: configuration, node: node)
        let port = try await server.start()
        do {
            var first: RawSocket? = try RawSocket(port: port)
            first!.send(request("/v2/subscribe/demo/c/0?tt=0"))
            XCTAssertEqual(first!.response()?.status, 200)

            let second = try RawSocket(port: port)
            second.send(request("/v2/subscribe/demo/c/0?tt=0"))
            let refused = try XCTUnwrap(second.response())
            XCTAssertEqual(refused.status, 429)
            XCTAssertEqual(refused.headers["connection"], "close")
            XCTAssertEqual(refused.headers["retry-after"], "1")
            XCTAssertNil(second.response(), "and closed")

            first = nil
            await waitUntil(10, "the first connection is released") {
                server.clientLimits.openConnections(from: "127.0.0.1") == 0
            }
            let third = try RawSocket(port: port)
            third.send(request("/v2/subscribe/demo/c/0?tt=0"))
            XCTAssertEqual(third.response()?.status, 200, "a new connection is admitted after the first closed")
            XCTAssertEqual(server.clientLimits.snapshot().refusedConnections, 1)
        }
        try await server.shutdown()
    }

    func testTheAdminRouteNeedsTheTokenAndShowsTheCounters() throws {
        let clock = ManualClock()
        let limits = ClientLimits(maxConnections: 4, requestsPerSecond: 1.5, clock: clock)
        let embedded = EmbeddedNode(adminToken: token, clientLimits: limits)
        XCTAssertEqual(try embedded.get("/v1/admin/limits").status, 401)
        XCTAssertEqual(try EmbeddedNode().get("/v1/admin/limits").status, 403, "off without an admin token")
        clock.advance(seconds: 10)
        let connection = try embedded.connect()
        try connection.send(request("/v2/subscribe/demo/c/0?tt=0"))
        XCTAssertEqual(try connection.response()?.status, 200)
        try connection.send(request("/v2/subscribe/demo/c/0?tt=0"))
        XCTAssertEqual(try connection.response()?.status, 429)
        clock.advance(seconds: 10)
        try connection.send(request("/v1/admin/limits", headers: "Authorization: Bearer \(token)\r\n"))
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, #"{"status":200,"service":"Limits","clients":{"maxConnections":4,"requestsPerSecond":1.5,"#
                       + #""trackedAddresses":1,"refusedConnections":0,"refusedRequests":1}}"#)
        clock.advance(seconds: 1)
        try connection.send(request("/v1/admin/limits/nothing", headers: "Authorization: Bearer \(token)\r\n"))
        XCTAssertEqual(try connection.response()?.status, 404)
    }
}
