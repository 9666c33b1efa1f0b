import Dispatch
@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// Presence through the hub: events land in `-pnpres` buffers and reach channel, group and
/// wildcard presence subscribers; groups and wildcards make a uuid present.
final class ChannelHubPresenceTests: XCTestCase {
    private let wall = ManualClock()

    private func hub(_ configure: (inout Limits) -> Void = { _ in }) -> ChannelHub {
        var limits = Limits()
        configure(&limits)
        return ChannelHub(subscribeKey: "demo", limits: limits, clock: TimetokenClock(wall: wall))
    }

    private func presencePayloads(_ hub: ChannelHub, _ channel: String) -> [String] {
        hub.collect(Fixture.subscription([channel + "-pnpres"]), after: .zero).deliveries.payloads
    }

    func testHeartbeatPublishesJoinOnThePresenceChannelAndWakesItsWaiters() throws {
        let hub = hub()
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: Fixture.subscription(["room-pnpres"]), after: hub.currentTimetoken()))
        let woken = try hub.heartbeat(PresenceUpdate(uuid: "u", channels: ["room", "room-pnpres"]))
        XCTAssertTrue(woken.includes(waiter))
        let second = Int(ManualClock.start / 1_000_000_000)
        XCTAssertEqual(presencePayloads(hub, "room"), [#"{"action":"join","uuid":"u","occupancy":1,"timestamp":\#(second)}"#])
        let delivery = hub.collect(Fixture.subscription(["room-pnpres"]), after: .zero).deliveries[0]
        XCTAssertEqual(delivery.message.kind, .presence)
        XCTAssertFalse(delivery.message.store)
        XCTAssertEqual(hub.whereNow(uuid: "u"), ["room"], "a -pnpres name never makes a uuid present")
    }

    func testGroupMembersAndWildcardNamesBecomePresentAndGroupPresenceSubscribersHearIt() throws {
        let hub = hub()
        try hub.addChannels(["g1", "g2"], toGroup: "grp")
        let groupWaiter = TestWaiter()
        let wildcardWaiter = TestWaiter()
        XCTAssertNil(hub.park(groupWaiter, on: Fixture.subscription(groups: ["grp-pnpres"]), after: hub.currentTimetoken()))
        XCTAssertNil(hub.park(wildcardWaiter, on: Fixture.subscription(["news.*-pnpres"]), after: hub.currentTimetoken()))
        let subscription = Fixture.subscription(["news.*", "news.*-pnpres"], groups: ["grp", "grp-pnpres"])
        let woken = try hub.heartbeat(PresenceUpdate(uuid: "u", subscription: subscription))
        XCTAssertTrue(woken.includes(groupWaiter))
        XCTAssertTrue(woken.includes(wildcardWaiter))
        XCTAssertEqual(hub.whereNow(uuid: "u"), ["g1", "g2", "news.*"])
        let groupRead = hub.collect(Fixture.subscription(groups: ["grp-pnpres"]), after: .zero).deliveries
        XCTAssertEqual(Set(groupRead.channels), ["g1-pnpres", "g2-pnpres"])
        XCTAssertEqual(groupRead.map(\.match), ["grp-pnpres", "grp-pnpres"])
        let wildcardRead = hub.collect(Fixture.subscription(["news.*-pnpres"]), after: .zero).deliveries
        XCTAssertEqual(wildcardRead.channels, ["news.*-pnpres"])
        let occupancy = hub.hereNow(channels: [], groups: ["grp"], query: OccupancyQuery())
        XCTAssertEqual(occupancy.map(\.channel).sorted(), ["g1", "g2"])
    }

    func testStateKeyedByGroupAppliesToMembersAndChannelKeysWin() throws {
        let hub = hub()
        try hub.addChannels(["m1", "m2"], toGroup: "grp")
        let state = #"{"grp":{"via":"group"},"m2":{"via":"channel"}}"#
        _ = try hub.heartbeat(PresenceUpdate(uuid: "u", channels: ["m2"], groups: ["grp"], state: Array(state.utf8)))
        let states = hub.state(of: "u", channels: [], groups: ["grp"])
        let texts = Dictionary(uniqueKeysWithValues: states.map { ($0.channel, String(decoding: $0.state ?? [], as: UTF8.self)) })
        XCTAssertEqual(texts, ["m1": #"{"via":"group"}"#, "m2": #"{"via":"channel"}"#])
    }

    func testARefusedStateChangesNothing() throws {
        let hub = hub()
        XCTAssertEqual(Fixture.pubNodeError { _ = try hub.heartbeat(PresenceUpdate(uuid: "u", channels: ["c"], state: Array("[1]".utf8))) },
                       .invalidState("state must be a JSON object keyed by channel name"))
        XCTAssertEqual(Fixture.pubNodeError { _ = try hub.setState(uuid: "u", channels: ["c"], groups: [], state: Array("7".utf8)) },
                       .invalidState("state must be a JSON object"))
        XCTAssertEqual(hub.whereNow(uuid: "u"), [])
        XCTAssertEqual(hub.presence.userCount, 0)
    }

    func testPerKeysetSettingsAndTimeoutClampThroughTheHub() throws {
        var limits = Limits()
        limits.presenceMinTimeoutSeconds = 30
        var overrides = PresenceSettings.Overrides()
        overrides.presenceTimeoutSeconds = 60
        let hub = ChannelHub(subscribeKey: "demo", limits: limits, clock: TimetokenClock(wall: wall),
                             presence: PresenceSettings(limits: limits, overrides: overrides))
        _ = try hub.heartbeat(PresenceUpdate(uuid: "default", channels: ["c"]))
        _ = try hub.heartbeat(PresenceUpdate(uuid: "short", channels: ["c"], timeoutSeconds: 1))
        wall.advance(seconds: 30)
        XCTAssertEqual(hub.sweepPresence().counts.timedOut, 1, "1 s was raised to the 30 s minimum")
        XCTAssertEqual(hub.whereNow(uuid: "short"), [])
        wall.advance(seconds: 30)
        let report = hub.sweepPresence()
        XCTAssertEqual(report.counts.timedOut, 1, "the keyset's own 60 s default")
        XCTAssertEqual(presencePayloads(hub, "c").last?.contains(#""action":"timeout","uuid":"default","occupancy":0"#), true)
    }

    func testSweepWakesPresenceSubscribersAndIntervalsGoThroughTheBuffer() throws {
        let hub = hub { $0.announceMax = 2 }
        for uuid in ["a", "b", "c"] { _ = try hub.heartbeat(PresenceUpdate(uuid: uuid, channels: ["hall"], timeoutSeconds: 20)) }
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: Fixture.subscription(["hall-pnpres"]), after: hub.currentTimetoken()))
        wall.advance(seconds: 20)
        let report = hub.sweepPresence()
        XCTAssertEqual(report.counts.timedOut, 3)
        XCTAssertEqual(report.counts.intervals, 1)
        XCTAssertTrue(report.waiters.includes(waiter))
        XCTAssertEqual(presencePayloads(hub, "hall").last?.hasPrefix(#"{"action":"interval","occupancy":0,"#), true)
    }

    /// Many threads join, refresh, leave and time out on overlapping channels; afterwards every
    /// uuid listed by where-now is in here-now of that channel and the reverse, and the last event
    /// of each channel carries its final occupancy.
    func testConcurrentChangesLeaveWhereNowAndHereNowInAgreement() throws {
        let hub = hub { $0.announceMax = 1000 }
        let channels = (0..<8).map { "c\($0)" }
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var random = UInt64(worker + 1) &* 0x9E37_79B9_7F4A_7C15
            for step in 0..<2000 {
                random ^= random << 13; random ^= random >> 7; random ^= random << 17
                let uuid = "u\(random % 40)"
                let picked = [channels[Int(random % 8)], channels[Int((random >> 8) % 8)]]
                switch step % 4 {
                case 0, 1: _ = try? hub.heartbeat(PresenceUpdate(uuid: uuid, channels: picked, timeoutSeconds: 20))
                case 2: _ = hub.leave(uuid: uuid, channels: picked, groups: [])
                default: _ = hub.sweepPresence()
                }
            }
        }
        var pairsFromUsers: Set<String> = []
        for index in 0..<40 {
            for channel in hub.whereNow(uuid: "u\(index)") { pairsFromUsers.insert("u\(index)@\(channel)") }
        }
        var pairsFromChannels: Set<String> = []
        for channel in hub.hereNow(query: OccupancyQuery()) {
            XCTAssertEqual(channel.occupancy, channel.occupants.count)
            for occupant in channel.occupants { pairsFromChannels.insert("\(occupant.uuid)@\(channel.channel)") }
            let last = presencePayloads(hub, channel.channel).last ?? ""
            XCTAssertTrue(last.contains(#""occupancy":\#(channel.occupancy),"#), "\(channel.channel): \(last)")
        }
        XCTAssertEqual(pairsFromUsers, pairsFromChannels)
        wall.advance(seconds: 20)
        _ = hub.sweepPresence()
        XCTAssertEqual(hub.hereNow(query: OccupancyQuery()), [])
        XCTAssertEqual(hub.presence.userCount, 0)
        XCTAssertEqual(hub.presence.channelCount, 0)
    }
}
