import Foundation
import PubNodeCore
import XCTest
@testable import pubnode

/// The client and keyset rate-limit settings.
final class RateLimitSettingsTests: XCTestCase {
    func testRatesAreUnlimitedAndCountsBoundedByDefault() {
        let configuration = NodeConfiguration()
        XCTAssertNil(configuration.clientRequestRate)
        XCTAssertEqual(configuration.keysetRateLimits, .unlimited)
        XCTAssertEqual(configuration.server.clientRequestsPerSecond, 0)
        XCTAssertEqual(configuration.server.maxConnectionsPerClient, 2_000)
        XCTAssertEqual(configuration.server.maxParkedPerClient, 1_000)
        let budget = configuration.server.maxConnections
        XCTAssertGreaterThanOrEqual(budget, 64, "derived from the descriptor limit")
        XCTAssertEqual(budget, DescriptorLimit.connectionBudget())
    }

    func testTheNodeConnectionLimitCanBeSetAndTheDescriptorLimitRaised() throws {
        var configuration = NodeConfiguration()
        try configuration.apply(flags: ["--connection-limit", "500", "--client-parked-limit", "0"])
        XCTAssertEqual(configuration.server.maxConnections, 500)
        XCTAssertEqual(configuration.server.maxParkedPerClient, 0)
        let soft = DescriptorLimit.raise()
        XCTAssertEqual(DescriptorLimit.connectionBudget(), max(64, soft - DescriptorLimit.reserve))
    }

    func testClientLimitsReachTheServerConfiguration() throws {
        var configuration = NodeConfiguration()
        try configuration.apply(flags: ["--client-connection-limit", "8", "--client-request-rate=2.5"])
        XCTAssertEqual(configuration.server.maxConnectionsPerClient, 8)
        XCTAssertEqual(configuration.server.clientRequestsPerSecond, 2.5)
    }

    func testKeysetDefaultsAreKeptAsRateLimits() throws {
        var configuration = NodeConfiguration()
        try configuration.apply(environment: ["PUBNODE_KEYSET_PUBLISH_RATE": "10", "PUBNODE_KEYSET_REQUEST_RATE": "0.5"])
        XCTAssertEqual(configuration.keysetRateLimits, RateLimits(publishesPerSecond: 10, requestsPerSecond: 0.5))
        try configuration.apply(json: Data(#"{"keysetPublishRate": 0, "limits": {"clientRequestRate": 7.25}}"#.utf8))
        XCTAssertEqual(configuration.keysetRateLimits, RateLimits(publishesPerSecond: nil, requestsPerSecond: 0.5),
                       "0 is unlimited")
        XCTAssertEqual(configuration.clientRequestRate, 7.25)
        XCTAssertEqual(NodeConfiguration.setting("keysetRequestRate")?.render(configuration), "0.5")
        XCTAssertEqual(NodeConfiguration.setting("clientRequestRate")?.render(configuration), "7.25")
    }

    func testBadRatesAreReportedClearly() {
        for value in ["-1", "abc", "nan", "inf", "2000000"] {
            var configuration = NodeConfiguration()
            XCTAssertThrowsError(try configuration.apply(flags: ["--client-request-rate", value]), value) { error in
                XCTAssertTrue("\(error)".contains("clientRequestRate"), "\(error)")
            }
        }
        var configuration = NodeConfiguration()
        XCTAssertThrowsError(try configuration.apply(flags: ["--client-connection-limit", "-3"]))
    }
}
