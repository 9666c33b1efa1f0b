@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A channel is listed under its wildcard prefixes once, when its state is created; publishes then
/// wake the prefixes' waiters through the states it was listed under.
final class WildcardListingTests: XCTestCase {
    private let wall = ManualClock()
    private lazy var hub = ChannelHub(subscribeKey: "demo", limits: Limits(), clock: TimetokenClock(wall: wall))

    func testANewChannelKeepsThePrefixStatesItIsListedUnder() throws {
        hub.publish(Fixture.draft("news.eu.sport"))
        let channel = try XCTUnwrap(hub.channels.get("news.eu.sport"))
        let listed = try XCTUnwrap(channel.inner.withLock { $0.listedUnder }).states
        XCTAssertEqual(listed.map(\.name), ["news.*", "news.eu.*"])
        for state in listed {
            XCTAssertTrue(state === hub.prefixes.get(state.name), "\(state.name) is not the live prefix")
            XCTAssertEqual(state.members(), ["news.eu.sport"])
        }
        hub.publish(Fixture.draft("plain"))
        XCTAssertEqual(hub.channels.get("plain")?.inner.withLock { $0.listedUnder }?.states.count, 0)
    }

    func testPublishesWakeWildcardWaitersThroughTheListedPrefixes() {
        hub.publish(Fixture.draft("news.eu"))
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: Fixture.subscription(["news.*"]), after: hub.currentTimetoken()))
        XCTAssertFalse(hub.publish(Fixture.draft("newsroom.eu")).waiters.includes(waiter))
        XCTAssertEqual(hub.publish(Fixture.draft("news.eu")).waiters.occurrences(of: waiter), 1)
    }

    func testAReclaimedListedPrefixIsListedAgainAndItsNewWaitersWoken() throws {
        hub.publish(Fixture.draft("news.eu"))
        // The prefix state the channel was listed under leaves the map (as a shut-down hub's do).
        let stale = try XCTUnwrap(hub.prefixes.get("news.*"))
        let removed = hub.prefixes.removeAll { name, state in
            guard name == "news.*" else { return false }
            state.inner.withLock { $0.reclaimed = true }
            return true
        }
        XCTAssertEqual(removed, 1)
        let subscription = Fixture.subscription(["news.*"])
        let cursor = hub.currentTimetoken()
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: cursor))
        XCTAssertFalse(hub.prefixes.get("news.*") === stale)

        XCTAssertTrue(hub.publish(Fixture.draft("news.eu")).waiters.includes(waiter))
        XCTAssertEqual(hub.prefixes.get("news.*")?.members(), ["news.eu"])
        XCTAssertEqual(hub.collect(subscription, after: cursor).deliveries.channels, ["news.eu"])
    }

    func testWildcardParkRacingTheFirstPublishesOfANewChannelNeverLosesAWakeUp() {
        // Each round: a wildcard waiter parks while two publishers make and publish to a new
        // channel under its prefix. The park sees a message, or a publish returns the waiter.
        for round in 0..<200 {
            let channel = "race.c\(round)"
            let race = Fixture.parkRacingPublishes(on: hub, subscription: Fixture.subscription(["race.*"]),
                                                   channel: channel, publishers: 2)
            if race.parked {
                XCTAssertTrue(race.woken, "round \(round): waiter parked but no publish returned it")
            }
        }
    }
}
