#if canImport(Glibc)
import Glibc
#endif
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

    func testOpenDescriptorsAreCountedAsTheDirectoryListsThem() throws {
        #if os(Linux)
        // Twenty more descriptors, then both ways of counting agree. A background thread of an
        // earlier test may open or close one between the two reads, so they are read again a few
        // times before the difference counts.
        var pipes: [Int32] = []
        for _ in 0..<10 {
            var ends: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&ends), 0)
            pipes += ends
        }
        defer { for fd in pipes { close(fd) } }
        var pair: (counted: Int?, listed: Int?) = (nil, nil)
        for _ in 0..<5 {
            pair = (ProcessStatistics.openDescriptors(), ProcessStatistics.countEntries("/proc/self/fd"))
            if pair.counted == pair.listed { break }
        }
        XCTAssertEqual(pair.counted, pair.listed)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(pair.listed), 23)
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
