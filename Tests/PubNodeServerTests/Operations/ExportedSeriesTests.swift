import NIOEmbedded
import Prometheus
@testable import PubNodeCore
@testable import PubNodeServer
import XCTest

/// Scrape-time series: counters grow by the difference since the last scrape, and a series whose
/// source is gone (a removed hook, a deleted keyset) leaves the registry.
final class ExportedSeriesTests: XCTestCase {
    private func hook(_ name: String, delivered: Int, pending: Int) -> HookStats {
        var counters = HookStats.Counters()
        counters.delivered = delivered
        counters.retries = 2
        return HookStats(name: name, trigger: .afterPublish, target: "https://hooks.example/\(name)", pending: pending,
                         inFlight: 1, deadLetters: 0, counters: counters)
    }

    func testCountersGrowByDifferencesAndVanishedSeriesAreUnregistered() {
        let registry = PrometheusCollectorRegistry()
        var series = ExportedSeries(registry: registry)
        series.beginScrape()
        series.exportHooks([hook("audit", delivered: 3, pending: 4), hook("billing", delivered: 1, pending: 0)])
        series.endScrape()
        var samples = OperationsFixture.samples(registry.emitToString())
        XCTAssertEqual(samples[#"pubnode_hook_delivered_total{hook="audit"}"#], 3)
        XCTAssertEqual(samples[#"pubnode_hook_pending{hook="audit"}"#], 4)
        XCTAssertEqual(samples[#"pubnode_hook_retries_total{hook="billing"}"#], 2)

        series.beginScrape()
        series.exportHooks([hook("audit", delivered: 10, pending: 0)])
        series.endScrape()
        samples = OperationsFixture.samples(registry.emitToString())
        XCTAssertEqual(samples[#"pubnode_hook_delivered_total{hook="audit"}"#], 10)
        XCTAssertEqual(samples[#"pubnode_hook_pending{hook="audit"}"#], 0)
        XCTAssertNil(samples[#"pubnode_hook_delivered_total{hook="billing"}"#], "a removed hook's series are gone")
        XCTAssertNil(samples[#"pubnode_hook_pending{hook="billing"}"#])

        // A total that went down (its source was recreated) becomes the new base; the counter never decreases.
        series.beginScrape()
        series.exportHooks([hook("audit", delivered: 2, pending: 0)])
        series.endScrape()
        series.beginScrape()
        series.exportHooks([hook("audit", delivered: 5, pending: 0)])
        series.endScrape()
        samples = OperationsFixture.samples(registry.emitToString())
        XCTAssertEqual(samples[#"pubnode_hook_delivered_total{hook="audit"}"#], 13)
    }

    func testProcessFiguresAreReadOnLinux() {
        let process = ProcessStatistics.read()
        #if os(Linux)
        XCTAssertGreaterThan(process.residentBytes ?? 0, 1 << 20)
        XCTAssertGreaterThan(process.openFileDescriptors ?? 0, 2)
        XCTAssertGreaterThan(process.cpuSeconds ?? 0, 0)
        #endif
    }

    func testRequestFamiliesComeFromThePathOnly() {
        XCTAssertEqual(RequestFamily(uri: "/publish/demo/demo/0/c/0/1?store=0").label, "publish")
        XCTAssertEqual(RequestFamily(uri: "/v2/subscribe/demo/c/0?tt=0").label, "subscribe")
        XCTAssertEqual(RequestFamily(uri: "/v3/history-with-actions/sub-key/demo/channel/c").label, "history")
        XCTAssertEqual(RequestFamily(uri: "/v1/channel-registration/sub-key/demo/channel-group/g").label, "channel_groups")
        XCTAssertEqual(RequestFamily(uri: "/ready").label, "probes")
        XCTAssertEqual(RequestFamily(uri: "/v1/message-actions/demo/channel/c").label, "message_actions")
        XCTAssertEqual(RequestFamily(uri: "/console/app.js").label, "console")
        XCTAssertEqual(RequestFamily(uri: "/pub").label, "other")
        XCTAssertEqual(RequestFamily(uri: "").label, "other")
    }
}

/// The request metrics count each loop's requests apart and render their sums: counters by family
/// and status, and cumulative latency buckets in Prometheus' text format.
final class HTTPMetricsTests: XCTestCase {
    func testObservationsLandInTheirBucketsAndRenderCumulatively() {
        let metrics = HTTPMetrics(bounds: [.milliseconds(1), .milliseconds(10)])
        let loop = EmbeddedEventLoop()
        XCTAssertFalse(Self.render(metrics).contains("_bucket"), "no series before the first observation")
        let share = metrics.share(for: loop)
        for nanoseconds: UInt64 in [500_000, 1_000_000, 2_000_000, 50_000_000] {
            share.record(.publish, status: 200, nanoseconds: nanoseconds)
        }
        let samples = OperationsFixture.samples(Self.render(metrics))
        let name = HTTPMetrics.durationLabel
        XCTAssertEqual(samples[#"\#(name)_bucket{family="publish",le="0.001"}"#], 2, "a bound is inclusive")
        XCTAssertEqual(samples[#"\#(name)_bucket{family="publish",le="0.01"}"#], 3)
        XCTAssertEqual(samples[#"\#(name)_bucket{family="publish",le="+Inf"}"#], 4)
        XCTAssertEqual(samples[#"\#(name)_count{family="publish"}"#], 4)
        XCTAssertEqual(samples[#"\#(name)_sum{family="publish"}"#] ?? 0, 0.0535, accuracy: 1e-9)
        XCTAssertNil(samples[#"\#(name)_count{family="subscribe"}"#])
    }

    func testEachLoopCountsInItsOwnShareAndAScrapeSumsThem() {
        let metrics = HTTPMetrics(bounds: [.milliseconds(1)])
        let first = EmbeddedEventLoop(), second = EmbeddedEventLoop()
        XCTAssertTrue(metrics.share(for: first) === metrics.share(for: first), "one share per loop")
        XCTAssertFalse(metrics.share(for: first) === metrics.share(for: second))
        metrics.share(for: first).record(.publish, status: 200, nanoseconds: 10)
        metrics.share(for: second).record(.publish, status: 200, nanoseconds: nil)
        metrics.share(for: second).record(.subscribe, status: 403, nanoseconds: nil)
        metrics.share(for: first).record(.history, status: 418, nanoseconds: nil)
        metrics.share(for: second).record(.history, status: 418, nanoseconds: nil)
        let text = Self.render(metrics)
        let samples = OperationsFixture.samples(text)
        let name = HTTPMetrics.requestsLabel
        XCTAssertEqual(samples[#"\#(name){family="publish",status="200"}"#], 2)
        XCTAssertEqual(samples[#"\#(name){family="subscribe",status="403"}"#], 1)
        XCTAssertEqual(samples[#"\#(name){family="history",status="418"}"#], 2, "an unusual status, counted apart")
        XCTAssertNil(samples[#"\#(name){family="publish",status="400"}"#], "nothing counted: no series")
        XCTAssertEqual(samples[#"\#(HTTPMetrics.durationLabel)_count{family="publish"}"#], 1, "only the timed one")
        XCTAssertEqual(text.components(separatedBy: "# TYPE \(name) counter").count, 2, "one family header")
    }

    private static func render(_ metrics: HTTPMetrics) -> String {
        var out: [UInt8] = []
        metrics.render(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
