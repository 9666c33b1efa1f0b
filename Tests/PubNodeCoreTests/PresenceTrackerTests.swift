@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// The tracker alone, with a manual clock: events are collected instead of published.
final class PresenceTrackerTests: XCTestCase {
    private let wall = ManualClock()
    private var events: [PresenceEvent] = []

    private func tracker(announceMax: Int = 20, interval: Int = 10, maxEventBytes: Int = 32768) -> PresenceTracker {
        var limits = Limits()
        limits.announceMax = announceMax
        limits.presenceIntervalSeconds = interval
        limits.maxMessageBytes = maxEventBytes
        return PresenceTracker(settings: PresenceSettings(limits: limits), clock: TimetokenClock(wall: wall))
    }

    private func collect(_ event: PresenceEvent) { events.append(event) }

    private func touch(_ tracker: PresenceTracker, _ uuid: String, _ channels: [String], timeout: Int = 300,
                       states: [String: [UInt8]?] = [:]) {
        tracker.touch(uuid: uuid, channels: channels, timeoutSeconds: timeout, states: states, emit: collect)
    }

    private func drain() -> [PresenceEvent] {
        defer { events = [] }
        return events
    }

    private func summary(_ events: [PresenceEvent]) -> [String] {
        events.map { "\($0.action.rawValue) \($0.uuid ?? "-") \($0.channel) \($0.occupancy)" }
    }

    private func assertConsistent(_ tracker: PresenceTracker, file: StaticString = #filePath, line: UInt = #line) {
        var fromUsers: Set<String> = []
        for uuid in tracker.users.keys() {
            for channel in tracker.channels(of: uuid) { fromUsers.insert("\(uuid)@\(channel)") }
        }
        var fromChannels: Set<String> = []
        for channel in tracker.occupiedChannels() {
            for occupant in tracker.occupancy(of: [channel])[0].occupants { fromChannels.insert("\(occupant.uuid)@\(channel)") }
        }
        XCTAssertEqual(fromUsers, fromChannels, "where-now and here-now disagree", file: file, line: line)
    }

    func testJoinsCountDistinctUUIDsAndARefreshIsSilent() {
        let tracker = tracker()
        touch(tracker, "a", ["room"])
        touch(tracker, "b", ["room"])
        touch(tracker, "a", ["room"])
        XCTAssertEqual(summary(drain()), ["join a room 1", "join b room 2"])
        XCTAssertEqual(tracker.occupancy(of: ["room"]), [ChannelOccupancy(channel: "room", occupancy: 2, occupants: [
            .init(uuid: "a"), .init(uuid: "b"),
        ])])
        XCTAssertEqual(tracker.channels(of: "a"), ["room"])
        assertConsistent(tracker)
    }

    func testSeveralConnectionsOfOneUUIDCountOnceAndOneLeaveRemovesIt() {
        let tracker = tracker()
        for _ in 0..<3 { touch(tracker, "multi", ["room", "hall"]) }
        XCTAssertEqual(tracker.occupancy(of: ["room"])[0].occupancy, 1)
        XCTAssertEqual(summary(drain()), ["join multi room 1", "join multi hall 1"])
        tracker.leave(uuid: "multi", channels: ["room"], emit: collect)
        XCTAssertEqual(summary(drain()), ["leave multi room 0"])
        XCTAssertEqual(tracker.channels(of: "multi"), ["hall"])
        XCTAssertEqual(tracker.occupancy(of: ["room"])[0].occupancy, 0)
        assertConsistent(tracker)
    }

    func testLeaveOfAnAbsentUUIDOrChannelIsSilent() {
        let tracker = tracker()
        tracker.leave(uuid: "ghost", channels: ["room"], emit: collect)
        touch(tracker, "a", ["room"])
        _ = drain()
        tracker.leave(uuid: "a", channels: ["elsewhere"], emit: collect)
        XCTAssertEqual(drain(), [])
        XCTAssertEqual(tracker.userCount, 1)
    }

    func testLeaveClearsStateAndReclaimsRecords() {
        let tracker = tracker()
        touch(tracker, "a", ["room"], states: ["room": Array(#"{"x":1}"#.utf8)])
        tracker.leave(uuid: "a", channels: ["room"], emit: collect)
        XCTAssertEqual(tracker.states(of: "a", on: ["room"]), [:])
        XCTAssertEqual(tracker.userCount, 0)
        XCTAssertEqual(tracker.channelCount, 0)
        touch(tracker, "a", ["room"])
        XCTAssertEqual(summary(drain()).last, "join a room 1", "a later subscribe joins again")
    }

    func testTimeoutFiresOnlyAfterTheTimeoutWithoutRefresh() {
        let tracker = tracker()
        touch(tracker, "a", ["room"], timeout: 60)
        touch(tracker, "b", ["room"], timeout: 300)
        _ = drain()
        wall.advance(seconds: 59)
        XCTAssertEqual(tracker.sweep(emit: collect).timedOut, 0)
        touch(tracker, "a", ["room"], timeout: 60)
        wall.advance(seconds: 59)
        XCTAssertEqual(tracker.sweep(emit: collect).timedOut, 0, "the refresh at 59 s restarted the timeout")
        wall.advance(seconds: 1)
        XCTAssertEqual(tracker.sweep(emit: collect).timedOut, 1)
        XCTAssertEqual(summary(drain()), ["timeout a room 1"])
        XCTAssertEqual(tracker.channels(of: "a"), [])
        wall.advance(seconds: 300)
        _ = tracker.sweep(emit: collect)
        XCTAssertEqual(summary(drain()), ["timeout b room 0"])
        XCTAssertEqual(tracker.userCount, 0)
        XCTAssertEqual(tracker.channelCount, 0)
    }

    func testTheLatestTimeoutAskedForApplies() {
        let tracker = tracker()
        touch(tracker, "a", ["room"], timeout: 300)
        touch(tracker, "a", ["room"], timeout: 30)
        wall.advance(seconds: 30)
        XCTAssertEqual(tracker.sweep(emit: collect).timedOut, 1)
    }

    func testTimeoutEventsCarryTheWallClockInSeconds() {
        let tracker = tracker()
        touch(tracker, "a", ["room"], timeout: 20)
        wall.advance(seconds: 20)
        _ = tracker.sweep(emit: collect)
        let timeout = drain().last
        XCTAssertEqual(timeout?.action, .timeout)
        XCTAssertEqual(timeout?.timestamp, Int(ManualClock.start / 1_000_000_000) + 20)
    }

    func testSettingsResolveRequestedTimeouts() {
        let settings = PresenceSettings(limits: Limits())
        XCTAssertEqual(settings.timeout(requested: nil), 300)
        XCTAssertEqual(settings.timeout(requested: 0), 300)
        XCTAssertEqual(settings.timeout(requested: 5), 20, "below the minimum is raised to it")
        XCTAssertEqual(settings.timeout(requested: 45), 45)
        XCTAssertEqual(settings.timeout(requested: 3600), 3600)
    }

    func testStateTravelsWithJoinAndChangesEmitStateChange() {
        let tracker = tracker()
        let calm = Array(#"{"mood":"calm"}"#.utf8)
        let busy = Array(#"{"mood":"busy"}"#.utf8)
        touch(tracker, "a", ["room"], states: ["room": calm])
        touch(tracker, "a", ["room"], states: ["room": calm])
        touch(tracker, "a", ["room"])
        touch(tracker, "a", ["room"], states: ["room": busy])
        let seen = drain()
        XCTAssertEqual(summary(seen), ["join a room 1", "state-change a room 1"])
        XCTAssertEqual(seen[0].state, calm)
        XCTAssertEqual(seen[1].state, busy)
        tracker.setState(uuid: "a", channels: ["room"], state: nil, emit: collect)
        XCTAssertEqual(drain().map(\.state), [nil])
        XCTAssertEqual(tracker.states(of: "a", on: ["room"]), [:])
    }

    func testStateSetBeforeJoiningIsKeptForTheJoinAndExpiresOtherwise() {
        let tracker = tracker()
        let state = Array(#"{"k":true}"#.utf8)
        tracker.setState(uuid: "a", channels: ["room", "other"], state: state, emit: collect)
        XCTAssertEqual(drain(), [], "no event for a uuid that is not present")
        XCTAssertEqual(tracker.channels(of: "a"), [], "state alone does not make a uuid present")
        XCTAssertEqual(tracker.states(of: "a", on: ["room", "other"]), ["room": state, "other": state])
        touch(tracker, "a", ["room"])
        XCTAssertEqual(drain().first?.state, state)
        wall.advance(seconds: 300)
        let counts = tracker.sweep(emit: collect)
        XCTAssertEqual(counts.timedOut, 1)
        XCTAssertEqual(counts.expiredStates, 1)
        XCTAssertEqual(tracker.userCount, 0)
    }

    func testAnnounceMaxSwitchesToIntervalEventsAndBack() {
        let tracker = tracker(announceMax: 3, interval: 10)
        for uuid in ["a", "b", "c"] { touch(tracker, uuid, ["big"]) }
        XCTAssertEqual(drain().count, 3)
        touch(tracker, "d", ["big"])
        touch(tracker, "e", ["big"])
        tracker.leave(uuid: "a", channels: ["big"], emit: collect)
        XCTAssertEqual(drain(), [], "above announce-max no per-uuid events")
        XCTAssertEqual(tracker.sweep(emit: collect).intervals, 0, "not due yet")
        wall.advance(seconds: 10)
        XCTAssertEqual(tracker.sweep(emit: collect).intervals, 1)
        let interval = drain()[0]
        XCTAssertEqual(interval.action, .interval)
        XCTAssertEqual(interval.occupancy, 4)
        XCTAssertEqual(interval.joined, ["d", "e"])
        XCTAssertEqual(interval.left, ["a"])
        XCTAssertEqual(String(decoding: interval.payload(), as: UTF8.self),
                       #"{"action":"interval","occupancy":4,"timestamp":\#(interval.timestamp),"join":["d","e"],"leave":["a"]}"#)

        wall.advance(seconds: 10)
        _ = tracker.sweep(emit: collect)
        XCTAssertEqual(String(decoding: drain()[0].payload(), as: UTF8.self),
                       #"{"action":"interval","occupancy":4,"timestamp":\#(interval.timestamp + 10)}"#,
                       "an interval event is sent every interval, even without changes")

        tracker.leave(uuid: "b", channels: ["big"], emit: collect)
        touch(tracker, "f", ["big"])
        tracker.leave(uuid: "f", channels: ["big"], emit: collect)
        XCTAssertEqual(drain(), [], "still announcing until the next interval tick")
        wall.advance(seconds: 10)
        _ = tracker.sweep(emit: collect)
        let last = drain()[0]
        XCTAssertEqual(last.occupancy, 3)
        XCTAssertEqual(last.left, ["b"])
        XCTAssertEqual(last.joined, [], "a join undone within the interval is not reported")
        tracker.leave(uuid: "c", channels: ["big"], emit: collect)
        touch(tracker, "g", ["big"])
        XCTAssertEqual(summary(drain()), ["leave c big 2", "join g big 3"],
                       "back at or below announce-max: per-uuid events again")
        assertConsistent(tracker)
    }

    func testPerUUIDEventsStopOnTheJoinThatCrossesAnnounceMax() {
        let tracker = tracker(announceMax: 1)
        touch(tracker, "a", ["c"])
        touch(tracker, "b", ["c"])
        XCTAssertEqual(summary(drain()), ["join a c 1"])
        tracker.setState(uuid: "a", channels: ["c"], state: Array(#"{"s":1}"#.utf8), emit: collect)
        XCTAssertEqual(drain(), [], "state-change is a per-uuid event too")
        wall.advance(seconds: 300)
        _ = tracker.sweep(emit: collect)
        let interval = drain()
        XCTAssertEqual(interval.map(\.action), [.interval])
        XCTAssertEqual(interval[0].occupancy, 0)
        XCTAssertEqual(interval[0].timedOut, ["a"])
        XCTAssertEqual(interval[0].joined, [], "b joined and timed out within one interval: no net change")
        XCTAssertEqual(tracker.channelCount, 0, "the empty channel is reclaimed once it stops announcing")
    }

    func testOversizedDeltasBecomeHereNowRefresh() {
        let tracker = tracker(announceMax: 1, maxEventBytes: 200)
        for index in 0..<40 { touch(tracker, "user-\(index)", ["crowd"]) }
        _ = drain()
        wall.advance(seconds: 10)
        _ = tracker.sweep(emit: collect)
        let event = drain()[0]
        XCTAssertTrue(event.hereNowRefresh)
        XCTAssertEqual(String(decoding: event.payload(), as: UTF8.self),
                       #"{"action":"interval","occupancy":40,"timestamp":\#(event.timestamp),"here_now_refresh":true}"#)
    }

    func testEventPayloadShapes() {
        var join = PresenceEvent(channel: "c", action: .join, uuid: "u\"1", occupancy: 2, timestamp: 1_700_000_000,
                                 state: Array(#"{"a":1}"#.utf8))
        XCTAssertEqual(String(decoding: join.payload(), as: UTF8.self),
                       #"{"action":"join","uuid":"u\"1","occupancy":2,"timestamp":1700000000,"state":{"a":1},"data":{"a":1}}"#)
        join.state = nil
        join.action = .stateChange
        XCTAssertEqual(String(decoding: join.payload(), as: UTF8.self),
                       #"{"action":"state-change","uuid":"u\"1","occupancy":2,"timestamp":1700000000}"#)
        let draft = join.draft()
        XCTAssertEqual(draft.channel, "c-pnpres")
        XCTAssertEqual(draft.kind, .presence)
        XCTAssertFalse(draft.store)
    }

    func testPagedOccupancyWithState() {
        let tracker = tracker()
        for uuid in ["d", "b", "a", "c"] { touch(tracker, uuid, ["room"]) }
        tracker.setState(uuid: "b", channels: ["room"], state: Array(#"{"n":2}"#.utf8), emit: collect)
        let page = tracker.occupancy(of: ["room", "empty"], query: OccupancyQuery(includeState: true, offset: 1, limit: 2))
        XCTAssertEqual(page[0], ChannelOccupancy(channel: "room", occupancy: 4, occupants: [
            .init(uuid: "b", state: Array(#"{"n":2}"#.utf8)), .init(uuid: "c"),
        ]))
        XCTAssertEqual(page[1], ChannelOccupancy(channel: "empty", occupancy: 0))
        XCTAssertEqual(tracker.occupancy(of: ["room"], query: OccupancyQuery(includeUUIDs: false))[0].occupants, [])
    }
}
