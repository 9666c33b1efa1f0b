import Foundation
import PubNodeCore
@testable import pubnode
import XCTest

/// Keysets with a secret key and the Access Manager switch, from flags, environment and file.
final class KeysetSecretSettingsTests: XCTestCase {
    func testASecretOnTheCommandLineTurnsAccessManagerOn() throws {
        var configuration = NodeConfiguration()
        try configuration.set("keysets", "demo:demo,pub-a:sub-a:sec-a")
        XCTAssertEqual(configuration.keysets, [.demo, Keyset(publishKey: "pub-a", subscribeKey: "sub-a", secretKey: "sec-a")])
        XCTAssertFalse(configuration.keysets[0].accessManager)
        XCTAssertTrue(configuration.keysets[1].accessManager)
        for bad in ["a:b:", "a::c", "a:b:c:d", ":b:c"] {
            XCTAssertThrowsError(try configuration.set("keysets", bad), bad)
        }
        let rendered = NodeConfiguration.keysetsSetting.render(configuration)
        XCTAssertFalse(rendered.contains("sec-a"), "listings never show a secret: \(rendered)")
    }

    func testTheFileSaysWhetherAccessManagerGuardsAKeyset() throws {
        var configuration = NodeConfiguration()
        try configuration.apply(json: Data(#"""
            {"keysets": [{"publishKey": "p1", "subscribeKey": "s1", "secretKey": "k1"},
                         {"publishKey": "p2", "subscribeKey": "s2", "secretKey": "k2", "accessManager": false},
                         {"publishKey": "p3", "subscribeKey": "s3"}]}
            """#.utf8))
        XCTAssertEqual(configuration.keysets.map(\.accessManager), [true, false, false])
        XCTAssertEqual(configuration.keysets.map(\.secretKey), ["k1", "k2", nil])
        try configuration.apply(json: Data(#"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "rateLimits": {"publishesPerSecond": 2.5}}]}"#.utf8))
        XCTAssertEqual(configuration.keysets[0].rateLimits, RateLimits(publishesPerSecond: 2.5))
        let bad = [#"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "accessManager": true}]}"#,
                   #"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "rateLimits": {"publishesPerSecond": -1}}]}"#,
                   #"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "rateLimits": {"burst": 1}}]}"#,
                   #"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "rateLimits": {"requestsPerSecond": true}}]}"#,
                   #"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "secretKey": ""}]}"#,
                   #"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "secretKey": "k", "accessManager": "yes"}]}"#]
        for text in bad {
            var fresh = NodeConfiguration()
            XCTAssertThrowsError(try fresh.apply(json: Data(text.utf8)), text)
        }
    }
}
