import Foundation
import PubNodeCore
@testable import pubnode
import XCTest

final class HistoryConfigurationTests: XCTestCase {
    func testDefaultsFileEnvironmentAndPerKeysetOverrides() throws {
        var configuration = NodeConfiguration()
        XCTAssertEqual(configuration.history.policy(for: "demo"), HistoryPolicy(enabled: true, retentionHours: 168))
        XCTAssertEqual(configuration.historyDatabasePath, "./pubnode-data/history.sqlite")
        try configuration.apply(json: Data("""
            {"historyRetentionHours": 24, "historyStrict": true, "keysets": [
              {"publishKey": "p1", "subscribeKey": "s1", "historyEnabled": false},
              {"publishKey": "p2", "subscribeKey": "s2", "historyRetentionHours": 0, "announceMax": 5}]}
            """.utf8))
        try configuration.apply(environment: ["PUBNODE_HISTORY_FLUSH_MILLISECONDS": "3"])
        XCTAssertTrue(configuration.history.strict)
        XCTAssertEqual(configuration.history.flushMilliseconds, 3)
        let policies = configuration.history.policies(for: configuration.keysets)
        XCTAssertEqual(policies["s1"], HistoryPolicy(enabled: false, retentionHours: 24))
        XCTAssertEqual(policies["s2"], HistoryPolicy(enabled: true, retentionHours: 0))
        XCTAssertEqual(configuration.keysets[1].presence.announceMax, 5)
    }

    func testBadHistorySettingsAreNamed() {
        var configuration = NodeConfiguration()
        XCTAssertThrowsError(try configuration.set("historyEnabled", "maybe")) { error in
            XCTAssertTrue("\(error)".contains("historyEnabled"), "\(error)")
        }
        XCTAssertThrowsError(try configuration.set("historyFlushMilliseconds", "5000"))
        XCTAssertThrowsError(try configuration.apply(json: Data(#"{"keysets":[{"publishKey":"p","subscribeKey":"s","historyRetentionHours":-1}]}"#.utf8)))
    }
}
