import NIOEmbedded
@testable import PubNodeServer
import XCTest

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
