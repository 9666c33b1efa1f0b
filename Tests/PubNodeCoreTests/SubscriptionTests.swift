import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class SubscriptionTests: XCTestCase {
    private func limits(channels: Int = 500, groups: Int = 10) -> Limits {
        var limits = Limits()
        limits.maxChannelsPerSubscribe = channels
        limits.maxGroupsPerSubscribe = groups
        return limits
    }

    func testSplitsChannelsAndWildcardsAndDedupes() throws {
        let subscription = try Subscription(channelNames: ["b", "a", "b", "x.*", "a", "x.y.*", "x.*"],
                                            groupNames: ["g2", "g1", "g2"], limits: Limits())
        XCTAssertEqual(subscription.channels, ["b", "a"], "first-seen order, each once")
        XCTAssertEqual(subscription.wildcards, [Subscription.Wildcard(pattern: "x.*", prefix: "x."),
                                                Subscription.Wildcard(pattern: "x.y.*", prefix: "x.y.")])
        XCTAssertEqual(subscription.groups, ["g1", "g2"])
        XCTAssertFalse(subscription.isEmpty)
    }

    func testEmptySubscription() throws {
        XCTAssertTrue(try Subscription(channelNames: [], groupNames: [], limits: Limits()).isEmpty)
        XCTAssertTrue(Subscription().isEmpty)
        XCTAssertFalse(try Subscription(channelNames: [], groupNames: ["g"], limits: Limits()).isEmpty)
        XCTAssertFalse(try Subscription(channelNames: ["a.*"], groupNames: [], limits: Limits()).isEmpty)
    }

    func testTooManyChannelsCountsDistinctNamesAndWildcards() {
        let limits = limits(channels: 2)
        XCTAssertNoThrow(try Subscription(channelNames: ["a", "b", "a", "b"], groupNames: [], limits: limits))
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: ["a", "b", "c"], groupNames: [], limits: limits) },
                       .tooManyChannels(limit: 2))
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: ["a", "b.*", "c"], groupNames: [], limits: limits) },
                       .tooManyChannels(limit: 2))
    }

    func testTooManyGroupsCountsDistinctNames() {
        let limits = limits(groups: 2)
        XCTAssertNoThrow(try Subscription(channelNames: [], groupNames: ["g1", "g2", "g1"], limits: limits))
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: [], groupNames: ["g1", "g2", "g3"], limits: limits) },
                       .tooManyGroups(limit: 2))
    }

    func testBadWildcardsAreRefused() {
        for pattern in ["a.b.c.*", "*", ".*", "a*", "a..*"] {
            XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: ["ok", pattern], groupNames: [], limits: Limits()) },
                           .invalidChannel(pattern, .badWildcard), pattern)
        }
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: ["a,b.*"], groupNames: [], limits: Limits()) },
                       .invalidChannel("a,b.*", .forbiddenCharacter))
    }

    func testInvalidChannelAndGroupNamesAreRefused() {
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: [""], groupNames: [], limits: Limits()) },
                       .invalidChannel("", .empty))
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: ["a/b"], groupNames: [], limits: Limits()) },
                       .invalidChannel("a/b", .forbiddenCharacter))
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: ["a"], groupNames: [""], limits: Limits()) },
                       .invalidGroup("", .empty))
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: [], groupNames: ["g*"], limits: Limits()) },
                       .invalidGroup("g*", .forbiddenCharacter))
        let long = String(repeating: "c", count: 2049)
        XCTAssertEqual(Fixture.pubNodeError { _ = try Subscription(channelNames: [long], groupNames: [], limits: Limits()) },
                       .invalidChannel(long, .tooLong))
    }
}
