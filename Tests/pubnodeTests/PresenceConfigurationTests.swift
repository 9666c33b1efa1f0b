import Foundation
import PubNodeCore
@testable import pubnode
import XCTest

final class PresenceConfigurationTests: XCTestCase {
    func testPresenceLimitsComeFromFileEnvironmentAndSetters() throws {
        var configuration = NodeConfiguration()
        try configuration.apply(json: Data(#"{"limits":{"presenceTimeoutSeconds":120,"announceMax":5}}"#.utf8))
        try configuration.apply(environment: ["PUBNODE_PRESENCE_INTERVAL_SECONDS": "3", "PUBNODE_MAX_STATE_BYTES": "512"])
        try configuration.set("presenceMinTimeoutSeconds", "30")
        let settings = configuration.limits.presence
        XCTAssertEqual(settings.timeoutSeconds, 120)
        XCTAssertEqual(settings.announceMax, 5)
        XCTAssertEqual(settings.intervalSeconds, 3)
        XCTAssertEqual(settings.maxStateBytes, 512)
        XCTAssertEqual(settings.minTimeoutSeconds, 30)
        XCTAssertNoThrow(try configuration.validate())
    }

    func testKeysetEntriesMayOverridePresenceLimits() throws {
        var configuration = NodeConfiguration()
        let file = #"{"keysets":[{"publishKey":"p","subscribeKey":"s","presenceTimeoutSeconds":60,"announceMax":3},"#
            + #"{"publishKey":"p2","subscribeKey":"s2"}]}"#
        try configuration.apply(json: Data(file.utf8))
        XCTAssertEqual(configuration.keysets[0].presence.presenceTimeoutSeconds, 60)
        XCTAssertEqual(configuration.keysets[0].presenceSettings(configuration.limits).announceMax, 3)
        XCTAssertEqual(configuration.keysets[1].presenceSettings(configuration.limits).timeoutSeconds, 300)
        XCTAssertNoThrow(try configuration.validate())
        let node = Node(keysets: configuration.keysets, limits: configuration.limits)
        XCTAssertEqual(node.presence.keyset("s")?.settings.timeoutSeconds, 60)
        XCTAssertEqual(node.presence.keyset("s2")?.settings.timeoutSeconds, 300)
    }

    func testBadKeysetOverridesAreReported() throws {
        var configuration = NodeConfiguration()
        XCTAssertThrowsError(try configuration.apply(json: Data(#"{"keysets":[{"publishKey":"p","subscribeKey":"s","colour":1}]}"#.utf8))) {
            XCTAssertEqual("\($0)", "unknown setting 'colour' in keyset s")
        }
        XCTAssertThrowsError(try configuration.apply(json: Data(#"{"keysets":[{"publishKey":"p","subscribeKey":"s","announceMax":0}]}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("announceMax"), "\($0)")
        }
        try configuration.apply(json: Data(#"{"keysets":[{"publishKey":"p","subscribeKey":"s","presenceMinTimeoutSeconds":400}]}"#.utf8))
        XCTAssertThrowsError(try configuration.validate()) {
            XCTAssertEqual("\($0)", "keyset s: presenceMinTimeoutSeconds (400) must not exceed presenceTimeoutSeconds (300)")
        }
    }
}
