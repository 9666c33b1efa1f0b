import Foundation
import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class PresenceSettingsTests: XCTestCase {
    func testDefaultsComeFromLimits() {
        let settings = Limits().presence
        XCTAssertEqual(settings.timeoutSeconds, 300)
        XCTAssertEqual(settings.minTimeoutSeconds, 20)
        XCTAssertEqual(settings.announceMax, 20)
        XCTAssertEqual(settings.intervalSeconds, 10)
        XCTAssertEqual(settings.maxStateBytes, 32 * 1024)
        XCTAssertEqual(settings.maxEventBytes, Limits().maxMessageBytes)
    }

    func testKeysetOverridesWinOverLimits() {
        var limits = Limits()
        limits.announceMax = 50
        var keyset = Keyset(publishKey: "p", subscribeKey: "s")
        keyset.presence.presenceTimeoutSeconds = 60
        keyset.presence.maxStateBytes = 100
        let settings = keyset.presenceSettings(limits)
        XCTAssertEqual(settings.timeoutSeconds, 60)
        XCTAssertEqual(settings.maxStateBytes, 100)
        XCTAssertEqual(settings.announceMax, 50)
        XCTAssertEqual(settings.minTimeoutSeconds, 20)
    }

    func testValidationNamesTheBadValue() {
        var limits = Limits()
        limits.announceMax = 0
        XCTAssertEqual(Fixture.error { try limits.validate() } as? ConfigurationError,
                       ConfigurationError("announceMax must be positive (got 0)"))
        limits = Limits()
        limits.presenceMinTimeoutSeconds = 400
        XCTAssertEqual(Fixture.error { try limits.validate() } as? ConfigurationError,
                       ConfigurationError("presenceMinTimeoutSeconds (400) must not exceed presenceTimeoutSeconds (300)"))
    }

    func testKeysetDecodesWithOrWithoutOverrides() throws {
        let plain = try JSONDecoder().decode(Keyset.self, from: Data(#"{"publishKey":"p","subscribeKey":"s"}"#.utf8))
        XCTAssertEqual(plain, Keyset(publishKey: "p", subscribeKey: "s"))
        var keyset = plain
        keyset.presence.announceMax = 5
        XCTAssertEqual(try JSONDecoder().decode(Keyset.self, from: JSONEncoder().encode(keyset)), keyset)
    }
}
