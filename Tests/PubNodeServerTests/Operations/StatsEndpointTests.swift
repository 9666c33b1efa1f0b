import Synchronization
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// `/v1/admin/stats`, the probes and the console's files, through the production pipeline.
final class StatsEndpointTests: XCTestCase {
    func testStatsListTheBusiestChannelsWithTheirRecentRates() throws {
        let fixture = OperationsFixture()
        let embedded = fixture.embedded
        for index in 0..<10 { try embedded.publish("hot", "\(index)") }
        try embedded.publish("cold", "1")
        XCTAssertEqual(try embedded.get("/v2/presence/sub-key/demo/channel/hot/heartbeat?uuid=ann").status, 200)
        let parked = try embedded.connect()
        try parked.send("GET /v2/subscribe/demo/quiet/0?tt=\(try embedded.handshake("quiet")) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try parked.response())

        let stats = try fixture.stats("?channels=2")
        XCTAssertEqual(stats["status"]?.int, 200)
        XCTAssertEqual(stats["node"]?["parkedPolls"]?.int, 1)
        XCTAssertEqual(stats["node"]?["ready"], .bool(true))
        XCTAssertEqual(stats["totals"]?["publishes"]?.int, 11)
        XCTAssertEqual(stats["totals"]?["occupancy"]?.int, 1)
        XCTAssertEqual(stats["keysets"]?[0]?["subscribeKey"]?.stringValue, "demo")
        let channels = stats["channels"]?.arrayValue ?? []
        // `cold` and `hot-pnpres` (ann's join) tie at one message: names break the tie.
        XCTAssertEqual(channels.map { $0["name"]?.stringValue }, ["hot", "cold"], "busiest first, at most 2")
        XCTAssertEqual(channels.first?["publishes"]?.int, 10)
        XCTAssertEqual(channels.first?["perSecond"]?.double, 1, "ten messages over the ten-second window")
        XCTAssertEqual(channels.first?["occupancy"]?.int, 1)
        XCTAssertEqual(channels.first?["buffered"]?.int, 10)

        // Eleven seconds later nothing is recent: the rate falls to zero, the totals stay.
        fixture.clock.advance(seconds: 11)
        let later = try fixture.stats()
        XCTAssertEqual(later["channels"]?[0]?["perSecond"]?.double, 0)
        XCTAssertEqual(later["totals"]?["publishes"]?.int, 11)
        XCTAssertEqual(later["node"]?["uptimeSeconds"]?.double, 11)
    }

    func testStatsRefuseStrangersAndBadParameters() throws {
        let fixture = OperationsFixture()
        XCTAssertEqual(try fixture.embedded.get("/v1/admin/stats").status, 401)
        let tooMany = try fixture.embedded.get("/v1/admin/stats?channels=201", headers: OperationsFixture.bearer)
        XCTAssertEqual(tooMany.status, 400)
        XCTAssertEqual(tooMany.json["error"], .bool(true))
        XCTAssertEqual(try fixture.embedded.get("/v1/admin/stats?channels=x", headers: OperationsFixture.bearer).status, 400)
        XCTAssertEqual(try fixture.embedded.get("/v1/admin/stats/more", headers: OperationsFixture.bearer).status, 404)
    }

    func testReadinessFollowsDrainingAndChecks() throws {
        let fixture = OperationsFixture()
        XCTAssertEqual(try fixture.embedded.get("/health").json["status"]?.stringValue, "ok")
        XCTAssertEqual(try fixture.embedded.get("/ready").status, 200)
        let healthy = Mutex(true)
        fixture.operations.readiness.addCheck("history") { healthy.withLock { $0 } }
        healthy.withLock { $0 = false }
        let failing = try fixture.embedded.get("/ready")
        XCTAssertEqual(failing.status, 503)
        XCTAssertEqual(failing.json["reasons"]?.arrayValue, [.string("history")])
        healthy.withLock { $0 = true }
        fixture.operations.readiness.markDraining()
        XCTAssertEqual(try fixture.embedded.get("/ready").json["reasons"]?.arrayValue, [.string("draining")])
        XCTAssertEqual(try fixture.embedded.get("/health").status, 200, "alive while draining")
    }

    func testTheConsoleFilesAreServedWithTheirTypesAndAStrictPolicy() throws {
        let script = ConsoleAssets.Asset(body: .init(string: "export {}"), contentType: "text/javascript; charset=utf-8")
        let fixture = OperationsFixture(console: ConsoleAssets(files: [
            "index.html": .init(body: .init(string: "<!doctype html>"), contentType: "text/html; charset=utf-8"),
            "app.js": script,
        ]))
        for target in ["/console", "/console/"] {
            let page = try fixture.embedded.get(target)
            XCTAssertEqual(page.status, 200)
            XCTAssertEqual(page.text, "<!doctype html>")
            XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
            XCTAssertEqual(page.headers["x-content-type-options"], "nosniff")
            XCTAssertTrue(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        }
        XCTAssertEqual(try fixture.embedded.get("/console/app.js").headers["content-type"], "text/javascript; charset=utf-8")
        for missing in ["/console/nope.js", "/console/../Package.swift", "/console/%2e%2e%2fPackage.swift"] {
            XCTAssertEqual(try fixture.embedded.get(missing).status, 404, missing)
        }
        let none = OperationsFixture(console: nil)
        XCTAssertEqual(try none.embedded.get("/console").status, 404)
    }

    func testTheInstalledConsoleIsTheOneInThePackage() throws {
        let console = try XCTUnwrap(ConsoleAssets.installed(), "the resource folder sits next to the test binary")
        XCTAssertNotNil(console.files["index.html"])
        XCTAssertEqual(ConsoleAssets.contentType(of: "style.css"), "text/css; charset=utf-8")
        XCTAssertNil(ConsoleAssets.contentType(of: "notes.txt"), "only the console's kinds of file are served")
    }
}
