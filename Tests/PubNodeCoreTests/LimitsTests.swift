import Foundation
import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class LimitsTests: XCTestCase {
    func testDefaults() throws {
        let limits = Limits()
        XCTAssertEqual(limits.bufferSize, 100)
        XCTAssertEqual(limits.messagesPerResponse, 100)
        XCTAssertEqual(limits.maxMessageBytes, 32 * 1024)
        XCTAssertEqual(limits.maxSignalBytes, 30)
        XCTAssertEqual(limits.maxChannelsPerGroup, 2000)
        XCTAssertEqual(limits.idleChannelSeconds, 60)
        XCTAssertEqual(limits.bufferRetentionSeconds, 3600)
        XCTAssertNoThrow(try limits.validate())
    }

    func testEveryCountMustBePositive() {
        let fields: [(String, WritableKeyPath<Limits, Int>)] = [
            ("bufferSize", \.bufferSize), ("messagesPerResponse", \.messagesPerResponse),
            ("maxMessageBytes", \.maxMessageBytes), ("maxSignalBytes", \.maxSignalBytes), ("maxBodyBytes", \.maxBodyBytes),
            ("maxChannelsPerSubscribe", \.maxChannelsPerSubscribe), ("maxGroupsPerSubscribe", \.maxGroupsPerSubscribe),
            ("maxChannelsPerGroup", \.maxChannelsPerGroup), ("longPollTimeoutSeconds", \.longPollTimeoutSeconds),
            ("idleChannelSeconds", \.idleChannelSeconds),
        ]
        for (name, field) in fields {
            for bad in [0, -1] {
                var limits = Limits()
                limits[keyPath: field] = bad
                let error = Fixture.error { try limits.validate() } as? ConfigurationError
                XCTAssertEqual(error, ConfigurationError("\(name) must be positive (got \(bad))"))
            }
        }
    }

    func testRetentionMayBeZeroButNotNegative() {
        var limits = Limits()
        limits.bufferRetentionSeconds = 0
        XCTAssertNoThrow(try limits.validate())
        limits.bufferRetentionSeconds = -1
        XCTAssertEqual(Fixture.error { try limits.validate() } as? ConfigurationError,
                       ConfigurationError("bufferRetentionSeconds must not be negative"))
    }

    func testCodableRoundTrip() throws {
        var limits = Limits()
        limits.bufferSize = 7
        limits.bufferRetentionSeconds = 0
        let decoded = try JSONDecoder().decode(Limits.self, from: JSONEncoder().encode(limits))
        XCTAssertEqual(decoded, limits)
    }
}
