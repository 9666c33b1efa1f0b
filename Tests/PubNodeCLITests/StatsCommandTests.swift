import ArgumentParser
import Foundation
import PubNodeClient
import XCTest
@testable import PubNodeCLI

/// `pubnode-cli stats`: its arguments, its rates and how it prints a sample.
final class StatsCommandTests: XCTestCase {
    /// A stats document in the endpoint's shape; `uptime`, `publishes` and `deliveries` vary.
    static func document(uptime: Double = 3725.5, publishes: Int = 10, deliveries: Int = 25,
                         startedAt: Int = 1_763_920_000_000) -> String {
        """
        {"status":200,"service":"Stats",
         "node":{"startedAt":\(startedAt),"uptimeSeconds":\(uptime),"timetoken":"17639200000000000",
                 "connections":3,"parkedPolls":2,"ready":true,"draining":false},
         "totals":{"publishes":\(publishes),"signals":1,"fires":0,"deliveries":\(deliveries),"bufferGaps":0,
                   "rateLimited":4,"channels":4,"occupancy":2},
         "keysets":[{"subscribeKey":"demo","channels":4,"groups":1,"occupancy":2,"publishes":\(publishes),"signals":1,
                     "fires":0,"deliveries":\(deliveries),"bufferGaps":0,"rateLimited":4}],
         "channels":[{"subscribeKey":"demo","name":"chat","publishes":8,"perSecond":1.5,"buffered":8,
                      "occupancy":2,"parked":1,"lastTimetoken":"17639200000000000"},
                     {"subscribeKey":"demo","name":"news\\nfeed","publishes":2,"perSecond":0,"buffered":2,
                      "occupancy":0,"parked":0,"lastTimetoken":null}]}
        """
    }

    static func stats(_ text: String = document()) throws -> NodeStats {
        try JSONValue(jsonData: Data(text.utf8)).decode(NodeStats.self)
    }

    func testArgumentsAndValidation() throws {
        let command = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["stats", "--admin-token", "adm", "--channels", "5", "--watch", "--interval", "0.5", "--count", "3"])
            as? StatsCommand)
        XCTAssertEqual(command.channels, 5)
        XCTAssertTrue(command.watch)
        XCTAssertEqual(command.interval, 0.5)
        XCTAssertEqual(command.count, 3)
        XCTAssertEqual(try command.admin.token(environment: [:]), "adm")
        let plain = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["stats"]) as? StatsCommand)
        XCTAssertEqual(plain.interval, 2)
        XCTAssertNil(plain.channels)
        XCTAssertEqual(try plain.admin.token(environment: ["PUBNODE_ADMIN_TOKEN": "env"]), "env")
        XCTAssertThrowsError(try plain.admin.token(environment: [:]))
        for bad in [["--channels", "201"], ["--channels", "-1"], ["--interval", "0"], ["--watch", "--count", "0"],
                    ["--count", "2"]] {
            XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["stats"] + bad), "\(bad)")
        }
    }

    func testRatesAreTheCountersDifferenceOverTheUptimeBetweenSamples() throws {
        let earlier = try Self.stats(Self.document(uptime: 100, publishes: 10, deliveries: 25))
        let later = try Self.stats(Self.document(uptime: 104, publishes: 16, deliveries: 55))
        let rates = try XCTUnwrap(StatsRates.between(earlier, later))
        XCTAssertEqual(rates, StatsRates(seconds: 4, publishes: 1.5, signals: 0, fires: 0, deliveries: 7.5))
        XCTAssertNil(StatsRates.between(earlier, earlier), "no time passed")
        XCTAssertNil(StatsRates.between(later, earlier), "time went back")
        let restarted = try Self.stats(Self.document(uptime: 200, publishes: 1, deliveries: 1))
        XCTAssertNil(StatsRates.between(later, restarted), "a counter went back: the node restarted")
        let other = try Self.stats(Self.document(uptime: 300, publishes: 20, deliveries: 60, startedAt: 1))
        XCTAssertNil(StatsRates.between(later, other), "another start time")
    }

    func testTextShowsTheOverviewKeysetsAndBusiestChannels() throws {
        let text = StatsOutput.text(try Self.stats(), rates: .none, style: Style(enabled: false))
        XCTAssertEqual(text, """
            uptime        1h 02m 05s
            state         ready
            connections   3
            parked polls  2
            channels      4
            occupancy     2
            publishes     10
            signals       1
            fires         0
            deliveries    25
            buffer gaps   0
            rate limited  4

            KEYSET  CHANNELS  GROUPS  OCCUPANCY  PUBLISHES  SIGNALS  FIRES  DELIVERIES
            demo           4       1          2         10        1      0          25

            KEYSET  CHANNEL     PER SEC  PUBLISHES  BUFFERED  OCCUPANCY  PARKED
            demo    chat            1.5          8         8          2       1
            demo    news\\nfeed      0.0          2         2          0       0
            """)
        let watching = StatsOutput.text(try Self.stats(), rates: .some(StatsRates(seconds: 2, publishes: 1.24, signals: 0,
                                                                                fires: 0, deliveries: 3)),
                                        style: Style(enabled: false))
        XCTAssertTrue(watching.contains("\nrates         1.2 publishes/s, 3.0 deliveries/s\n"), watching)
        let first = StatsOutput.text(try Self.stats(), rates: .some(nil), style: Style(enabled: false))
        XCTAssertTrue(first.contains("\nrates         after the next sample\n"), first)
    }

    func testDurations() {
        XCTAssertEqual(StatsOutput.duration(0), "0s")
        XCTAssertEqual(StatsOutput.duration(59.9), "59s")
        XCTAssertEqual(StatsOutput.duration(184), "3m 04s")
        XCTAssertEqual(StatsOutput.duration(3723), "1h 02m 03s")
        XCTAssertEqual(StatsOutput.duration(2 * 86_400 + 3 * 3600 + 4 * 60), "2d 03h 04m")
    }
}
