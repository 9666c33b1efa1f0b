import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// `/metrics` after known traffic reads exactly what was sent, through the production pipeline.
final class MetricsEndpointTests: XCTestCase {
    func testCountersReadExactlyTheTrafficSent() throws {
        let fixture = OperationsFixture()
        let embedded = fixture.embedded
        let cursor = try embedded.handshake("room")
        let first = try embedded.connect()
        let second = try embedded.connect()
        for connection in [first, second] {
            try connection.send("GET /v2/subscribe/demo/room/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        XCTAssertNil(try first.response(), "parked")
        XCTAssertEqual(fixture.operations.gauges.parkedPolls, 2)
        for index in 0..<3 { try embedded.publish("room", #"{"n":\#(index)}"#) }
        for _ in 0..<2 { XCTAssertEqual(try embedded.get("/signal/demo/demo/0/room/0/1").status, 200) }
        XCTAssertEqual(try embedded.get("/publish/demo/demo/0/room/0/2?store=0&norep=true").status, 200, "a fire")
        XCTAssertEqual(try embedded.get("/publish/demo/demo/0/room/0/%7Bnot-json").status, 400)
        // Each parked poll is woken by the first publish and answered with what was buffered by then.
        let delivered = try [first, second].map { try XCTUnwrap($0.response()).json["m"]?.arrayValue.count ?? 0 }

        let samples = try fixture.metrics()
        XCTAssertEqual(samples[#"pubnode_messages_published_total{keyset="demo",kind="message"}"#], 3)
        XCTAssertEqual(samples[#"pubnode_messages_published_total{keyset="demo",kind="signal"}"#], 2)
        XCTAssertEqual(samples[#"pubnode_messages_published_total{keyset="demo",kind="fire"}"#], 1)
        XCTAssertEqual(samples[#"pubnode_messages_delivered_total{keyset="demo"}"#], Double(delivered.reduce(0, +)))
        XCTAssertEqual(samples[#"pubnode_http_requests_total{family="publish",status="200"}"#], 4)
        XCTAssertEqual(samples[#"pubnode_http_requests_total{family="publish",status="400"}"#], 1)
        XCTAssertEqual(samples[#"pubnode_http_requests_total{family="signal",status="200"}"#], 2)
        XCTAssertEqual(samples[#"pubnode_http_requests_total{family="subscribe",status="200"}"#], 3, "handshake and two polls")
        XCTAssertEqual(samples[#"pubnode_http_request_duration_seconds_count{family="publish"}"#], 5)
        XCTAssertEqual(samples[#"pubnode_http_request_duration_seconds_count{family="subscribe"}"#], 1,
                       "parked polls are counted, not timed")
        XCTAssertEqual(samples["pubnode_parked_polls"], 0)
        XCTAssertEqual(samples[#"pubnode_channels{keyset="demo"}"#], 1)
        XCTAssertEqual(samples["pubnode_ready"], 1)
        XCTAssertNotNil(samples["process_resident_memory_bytes"])
        XCTAssertNotNil(samples["process_open_fds"])

        // A second scrape adds only what happened in between.
        try embedded.publish("room", "4")
        let again = try fixture.metrics()
        XCTAssertEqual(again[#"pubnode_messages_published_total{keyset="demo",kind="message"}"#], 4)
    }

    func testRefusalsByRateLimitsAndBufferGapsAreCounted() throws {
        let limited = Keyset(publishKey: "demo", subscribeKey: "demo",
                             rateLimits: RateLimits(publishesPerSecond: 1))
        var limits = Limits()
        limits.bufferSize = 2
        let fixture = OperationsFixture(keysets: [limited], limits: limits)
        let embedded = fixture.embedded
        let before = try embedded.handshake("c")
        try embedded.publish("c", "1")
        XCTAssertEqual(try embedded.get("/publish/demo/demo/0/c/0/2").status, 429)
        fixture.clock.advance(seconds: 1)
        try embedded.publish("c", "2")
        fixture.clock.advance(seconds: 1)
        try embedded.publish("c", "3")
        // The ring holds the last two: a cursor from before the first has lost one message.
        let catchUp = try embedded.get("/v2/subscribe/demo/c/0?tt=\(before)")
        XCTAssertEqual(catchUp.json["m"]?.arrayValue.count, 2)
        let samples = try fixture.metrics()
        XCTAssertEqual(samples[#"pubnode_rate_limited_total{scope="keyset_publish"}"#], 1)
        XCTAssertEqual(samples[#"pubnode_http_requests_total{family="publish",status="429"}"#], 1)
        XCTAssertEqual(samples[#"pubnode_buffer_gaps_total{keyset="demo"}"#], 1)
        let stats = try fixture.stats()
        XCTAssertEqual(stats["totals"]?["bufferGaps"]?.int, 1)
        XCTAssertEqual(stats["totals"]?["rateLimited"]?.int, 1)
    }

    func testMetricsNeedTheAdminTokenExceptOnTheMetricsPort() throws {
        let fixture = OperationsFixture()
        XCTAssertEqual(try fixture.embedded.get("/metrics").status, 401)
        XCTAssertEqual(try fixture.embedded.get("/metrics", headers: ["Authorization": "Bearer wrong-token-000000"]).status, 401)
        let port = OperationsFixture(metricsListener: true)
        let reply = try XCTUnwrap(port.embedded.router.answerWaiting(try PubNubRequest(method: .GET, uri: "/metrics")))
        XCTAssertEqual(reply.status.code, 200)
        XCTAssertTrue(String(buffer: reply.body).contains("pubnode_ready 1"), String(buffer: reply.body))
        XCTAssertEqual(try port.embedded.get("/health").status, 200)
        XCTAssertEqual(try port.embedded.get("/publish/demo/demo/0/c/0/1").status, 404, "the metrics port serves nothing else")
        XCTAssertEqual(try port.embedded.get("/v1/admin/stats", headers: OperationsFixture.bearer).status, 404)
    }

    func testMetricsTurnedOffAnswerNotFound() throws {
        let fixture = OperationsFixture(metrics: nil)
        let response = try fixture.embedded.get("/metrics", headers: OperationsFixture.bearer)
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.json["message"]?.stringValue, "Metrics are turned off")
    }

    func testHistoryCommitsAreObserved() {
        let metrics = ServerMetrics()
        metrics.historyCommitted(.init(nanoseconds: 2_000_000, messages: 5, succeeded: true))
        metrics.historyCommitted(.init(nanoseconds: 1_000, messages: 1, succeeded: false))
        let samples = OperationsFixture.samples(metrics.registry.emitToString())
        XCTAssertEqual(samples[#"pubnode_history_commits_total{result="ok"}"#], 1)
        XCTAssertEqual(samples[#"pubnode_history_commits_total{result="failed"}"#], 1)
        XCTAssertEqual(samples["pubnode_history_commit_duration_seconds_count"], 2)
        XCTAssertEqual(samples[#"pubnode_history_commit_duration_seconds_bucket{le="0.002"}"#], 2)
        XCTAssertEqual(samples[#"pubnode_history_commit_duration_seconds_bucket{le="0.001"}"#], 1)
    }
}
