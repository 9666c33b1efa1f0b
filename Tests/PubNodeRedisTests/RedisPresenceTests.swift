import Foundation
import PubNodeCore
@testable import PubNodeRedis
import XCTest

/// Presence shared through a real `redis-server`: connections stand for nodes. Time never passes
/// in these tests: a sweep or a read "later" passes its own `now`.
final class RedisPresenceTests: RedisServerTestCase {
    private let settings = PresenceSettings(limits: Limits())

    private func node(_ subscribeKey: String = "demo", maxStates: Int = 1_000) async throws -> RedisPresence {
        RedisPresence(connection: try await connect(), subscribeKey: subscribeKey, settings: settings, maxStatesPerUUID: maxStates)
    }

    /// Unix milliseconds, `seconds` from now.
    private func later(_ seconds: Int) -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) + Int64(seconds) * 1_000 }

    private func json(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testConcurrentHeartbeatsFromTwoNodesJoinEachUUIDOnce() async throws {
        let nodes = [try await node(), try await node()]
        let uuids = (0..<40).map { "u\($0)" }
        // Every uuid heartbeats through both nodes at once, three times each.
        let events = try await withThrowingTaskGroup(of: [PresenceEvent].self) { group in
            for _ in 0..<3 {
                for (index, uuid) in uuids.enumerated() {
                    for node in nodes {
                        group.addTask {
                            try await node.heartbeat(uuid: uuid, channels: ["chat"], timeoutSeconds: 60,
                                                     states: index == 0 ? ["chat": Array(#"{"a":1}"#.utf8)] : [:])
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let joins = events.filter { $0.action == .join }
        XCTAssertEqual(joins.map { $0.uuid! }.sorted(), uuids.sorted(), "one join per uuid in the whole cluster")
        XCTAssertEqual(joins.map(\.occupancy).sorted(), Array(1...40), "each join counts the channel after it")
        XCTAssertTrue(events.allSatisfy { $0.action == .join && $0.channel == "chat" }, "\(events.filter { $0.action != .join })")
        XCTAssertEqual(joins.first { $0.uuid == "u0" }?.state, json(#"{"a":1}"#))
        for node in nodes {
            let here = try await node.hereNow(channels: ["chat"], query: OccupancyQuery())
            XCTAssertEqual(here.map(\.occupancy), [40])
            XCTAssertEqual(here.first?.occupants.map(\.uuid), uuids.sorted())
        }
    }

    func testHereNowListsTheUsersOfEveryNode() async throws {
        let a = try await node(), b = try await node()
        _ = try await a.heartbeat(uuid: "ann", channels: ["chat"], timeoutSeconds: 60, states: [:])
        let bob = try await b.heartbeat(uuid: "bob", channels: ["chat", "news"], timeoutSeconds: 60, states: [:])
        XCTAssertEqual(bob.map(\.action), [.join, .join])
        XCTAssertEqual(bob.map(\.occupancy), [2, 1])
        for node in [a, b] {
            let here = try await node.hereNow(channels: ["chat", "news", "empty"], query: OccupancyQuery())
            XCTAssertEqual(here, [ChannelOccupancy(channel: "chat", occupancy: 2, occupants: [.init(uuid: "ann"), .init(uuid: "bob")]),
                                  ChannelOccupancy(channel: "news", occupancy: 1, occupants: [.init(uuid: "bob")]),
                                  ChannelOccupancy(channel: "empty", occupancy: 0)])
        }
        let counts = try await a.hereNow(channels: ["chat"], query: OccupancyQuery(includeUUIDs: false))
        XCTAssertEqual(counts, [ChannelOccupancy(channel: "chat", occupancy: 2)])
        let page = try await a.hereNow(channels: ["chat"], query: OccupancyQuery(offset: 1, limit: 5))
        XCTAssertEqual(page.first?.occupants.map(\.uuid), ["bob"])
        let expired = try await b.hereNow(channels: ["chat"], query: OccupancyQuery(), now: later(61))
        XCTAssertEqual(expired, [ChannelOccupancy(channel: "chat", occupancy: 0)], "expired entries are not listed, swept or not")
    }

    func testLeaveIsAnnouncedOnceAndLeavingWhereAbsentIsSilent() async throws {
        let a = try await node(), b = try await node()
        _ = try await a.heartbeat(uuid: "ann", channels: ["chat", "news"], timeoutSeconds: 60, states: [:])
        _ = try await a.heartbeat(uuid: "bob", channels: ["chat"], timeoutSeconds: 60, states: [:])
        async let fromA = a.leave(uuid: "ann", channels: ["chat"])
        async let fromB = b.leave(uuid: "ann", channels: ["chat"])
        let events = try await fromA + fromB
        XCTAssertEqual(events, [PresenceEvent(channel: "chat", action: .leave, uuid: "ann", occupancy: 1, timestamp: events.first?.timestamp ?? 0)])
        let again = try await b.leave(uuid: "ann", channels: ["chat", "never"])
        XCTAssertEqual(again, [])
        let nobody = try await b.leave(uuid: "zed", channels: ["chat"])
        XCTAssertEqual(nobody, [])
        let whereNow = try await b.whereNow(uuid: "ann")
        XCTAssertEqual(whereNow, ["news"])
    }

    func testConcurrentSweepsTimeOutEachEntryOnceAndADeadNodesUsersGo() async throws {
        let dead = try await node(), b = try await node(), c = try await node()
        let uuids = (0..<150).map { "u\($0)" }
        for uuid in uuids {
            _ = try await dead.heartbeat(uuid: uuid, channels: ["a", "b"], timeoutSeconds: 60, states: ["a": json(#"{"x":1}"#)])
        }
        _ = try await b.heartbeat(uuid: "alive", channels: ["a"], timeoutSeconds: 300, states: [:])
        let none = try await b.sweep(limit: 1_000)
        XCTAssertEqual(none, [], "nothing is due yet")
        // The node that held the 150 uuids is gone; the others sweep at once, a bit at a time, two
        // minutes on.
        let at = later(120)
        let events = try await withThrowingTaskGroup(of: [PresenceEvent].self) { group in
            for sweeper in [b, c, b, c] {
                group.addTask {
                    var all: [PresenceEvent] = []
                    while true {
                        let batch = try await sweeper.sweep(limit: 25, now: at)
                        if batch.isEmpty { return all }
                        all += batch
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertTrue(events.allSatisfy { $0.action == .timeout })
        let pairs = events.map { "\($0.channel)/\($0.uuid!)" }
        XCTAssertEqual(pairs.count, 300, "each entry timed out once")
        XCTAssertEqual(Set(pairs), Set(uuids.flatMap { ["a/\($0)", "b/\($0)"] }))
        XCTAssertEqual(events.filter { $0.channel == "b" }.map(\.occupancy).sorted(), Array(repeating: 0, count: 150))
        XCTAssertEqual(events.filter { $0.channel == "a" }.map(\.occupancy).sorted(), Array(repeating: 1, count: 150),
                       "the live uuid still counts")
        XCTAssertEqual(events.first?.timestamp, Int(at / 1_000))
        let here = try await c.hereNow(channels: ["a", "b"], query: OccupancyQuery(includeState: true), now: at)
        XCTAssertEqual(here, [ChannelOccupancy(channel: "a", occupancy: 1, occupants: [.init(uuid: "alive")]),
                              ChannelOccupancy(channel: "b", occupancy: 0)])
        let states = try await c.state(uuid: "u7", channels: ["a"])
        XCTAssertNil(states.first?.state, "a timeout clears the state")
        let whereNow = try await c.whereNow(uuid: "u7", now: at)
        XCTAssertEqual(whereNow, [])
        let global = try await c.hereNow(query: OccupancyQuery(), now: at)
        XCTAssertEqual(global.map(\.channel), ["a"])
    }

    func testAnEntryFoundExpiredBeforeTheSweepTimesOutThenJoins() async throws {
        let a = try await node()
        _ = try await a.heartbeat(uuid: "ann", channels: ["chat"], timeoutSeconds: 30, states: [:])
        let back = try await a.heartbeat(uuid: "ann", channels: ["chat"], timeoutSeconds: 30, states: [:], now: later(45))
        XCTAssertEqual(back.map(\.action), [.timeout, .join])
        XCTAssertEqual(back.map(\.occupancy), [0, 1])
        let swept = try await a.sweep(limit: 10, now: later(50))
        XCTAssertEqual(swept, [], "the refreshed entry is not due")
    }

    func testStateChangeOnlyOnChangeAndStateKeptForALaterJoin() async throws {
        let a = try await node(), b = try await node()
        let mood = json(#"{"mood":"ok"}"#), busy = json(#"{"mood":"busy"}"#)
        let join = try await a.heartbeat(uuid: "ann", channels: ["chat"], timeoutSeconds: 60, states: ["chat": mood])
        XCTAssertEqual(join.map(\.action), [.join])
        XCTAssertEqual(join.first?.state, mood)
        var quiet = try await b.heartbeat(uuid: "ann", channels: ["chat"], timeoutSeconds: 60, states: ["chat": mood])
        quiet += try await b.heartbeat(uuid: "ann", channels: ["chat"], timeoutSeconds: 60, states: [:])
        quiet += try await a.setState(uuid: "ann", channels: ["chat"], state: mood)
        XCTAssertEqual(quiet, [], "the same state, or none given, changes nothing")
        let changed = try await b.heartbeat(uuid: "ann", channels: ["chat"], timeoutSeconds: 60, states: ["chat": busy])
        XCTAssertEqual(changed.map(\.action), [.stateChange])
        XCTAssertEqual(changed.first?.state, busy)
        let here = try await a.hereNow(channels: ["chat"], query: OccupancyQuery(includeState: true))
        XCTAssertEqual(here.first?.occupants, [.init(uuid: "ann", state: busy)])
        let cleared = try await a.setState(uuid: "ann", channels: ["chat"], state: json("{ }"))
        XCTAssertEqual(cleared.map(\.action), [.stateChange])
        XCTAssertNil(cleared.first?.state)
        // State on a channel the uuid is not on: no event, carried by its next join.
        let kept = try await a.setState(uuid: "ann", channels: ["news"], state: mood)
        XCTAssertEqual(kept, [])
        let stored = try await b.state(uuid: "ann", channels: ["chat", "news"])
        XCTAssertEqual(stored.map(\.channel), ["chat", "news"])
        XCTAssertEqual(stored.map(\.state), [nil, mood])
        let joinsNews = try await b.heartbeat(uuid: "ann", channels: ["news"], timeoutSeconds: 60, states: [:])
        XCTAssertEqual(joinsNews.first?.state, mood)
        // Kept state expires after the keyset's presence timeout when no join comes.
        _ = try await a.setState(uuid: "ann", channels: ["sports"], state: mood)
        let swept = try await a.sweep(limit: 10, now: later(settings.timeoutSeconds + 1))
        XCTAssertEqual(Set(swept.map(\.channel)), ["chat", "news"], "kept state expires without an event")
        let gone = try await a.state(uuid: "ann", channels: ["sports"])
        XCTAssertNil(gone.first?.state)
    }

    func testGlobalHereNowReadsTheChannelIndex() async throws {
        let a = try await node(), b = try await node()
        _ = try await a.heartbeat(uuid: "ann", channels: ["z", "m"], timeoutSeconds: 60, states: [:])
        _ = try await b.heartbeat(uuid: "bob", channels: ["a", "m"], timeoutSeconds: 300, states: [:])
        _ = try await b.leave(uuid: "bob", channels: ["a"])
        let global = try await a.hereNow(query: OccupancyQuery())
        XCTAssertEqual(global.map(\.channel), ["m", "z"])
        XCTAssertEqual(global.map(\.occupancy), [2, 1])
        let index = try await a.connection.send(["ZRANGE", .text(a.indexKey), "0", "-1"]).array?.compactMap(\.string)
        XCTAssertEqual(Set(index ?? []), ["m", "z"], "the index holds occupied channels only")
        let whereNow = try await b.whereNow(uuid: "ann")
        XCTAssertEqual(whereNow, ["m", "z"])
        // Ann's entries expire; the sweep trims the index of channels nobody is left on.
        _ = try await b.sweep(limit: 100, now: later(120))
        let trimmed = try await a.connection.send(["ZRANGE", .text(a.indexKey), "0", "-1"]).array?.compactMap(\.string)
        XCTAssertEqual(trimmed, ["m"])
        let after = try await a.hereNow(query: OccupancyQuery(), now: later(120))
        XCTAssertEqual(after, [ChannelOccupancy(channel: "m", occupancy: 1, occupants: [.init(uuid: "bob")])])
    }

    func testEveryKeyExpiresByItselfAndPurgeLeavesNoKeys() async throws {
        let a = try await node("demo"), other = try await node("demo2")
        for index in 0..<30 {
            _ = try await a.heartbeat(uuid: "u\(index)", channels: ["c\(index % 4)", "all"], timeoutSeconds: 60,
                                      states: ["all": json(#"{"n":\#(index)}"#)])
        }
        _ = try await a.setState(uuid: "lone", channels: ["x"], state: json(#"{"k":1}"#))
        // State set on a present uuid that had none creates its hash: it must expire too.
        _ = try await a.heartbeat(uuid: "v", channels: ["all"], timeoutSeconds: 600, states: [:])
        _ = try await a.setState(uuid: "v", channels: ["all"], state: json(#"{"k":2}"#))
        _ = try await other.heartbeat(uuid: "ann", channels: ["c0"], timeoutSeconds: 60, states: [:])
        let keys = try await keys("pubnode:*:4:demo*")
        XCTAssertEqual(keys.count, 31 + 31 + 5 + 1 + 1 + 1, "uuids, states, channels, the kept state, index, queue")
        for key in keys {
            let ttl = try await a.connection.send(["PTTL", .text(key)]).int ?? -3
            XCTAssertGreaterThan(ttl, 0, key)
            XCTAssertLessThanOrEqual(ttl, Int64(600 + 60) * 1_000, key)
        }
        try await a.purge()
        let left = try await self.keys("pubnode:*:4:demo*")
        XCTAssertEqual(left, [])
        let survivors = try await other.whereNow(uuid: "ann")
        XCTAssertEqual(survivors, ["c0"], "another keyset is untouched")
    }

    func testBounds() async throws {
        let a = try await node(maxStates: 2)
        let many = (0...RedisPresence.maxChannelsPerCall).map { "c\($0)" }
        await assertRefused(.tooManyChannels(limit: 1_000)) { _ = try await a.heartbeat(uuid: "u", channels: many, timeoutSeconds: 60, states: [:]) }
        await assertRefused(.tooManyChannels(limit: 1_000)) { _ = try await a.hereNow(channels: many, query: OccupancyQuery()) }
        let big = json(#"{"a":""# + String(repeating: "x", count: settings.maxStateBytes) + #""}"#)
        await assertRefused(.stateTooLarge(limit: settings.maxStateBytes)) { _ = try await a.setState(uuid: "u", channels: ["c"], state: big) }
        await assertRefused(.invalidState("state must be a JSON object")) {
            _ = try await a.heartbeat(uuid: "u", channels: ["c"], timeoutSeconds: 60, states: ["c": json("[1]")])
        }
        _ = try await a.heartbeat(uuid: "u", channels: ["c1", "c2"], timeoutSeconds: 60,
                                  states: ["c1": json(#"{"a":1}"#), "c2": json(#"{"a":1}"#)])
        await assertRefused(.tooManyStates(limit: 2)) {
            _ = try await a.heartbeat(uuid: "u", channels: ["c3", "c1"], timeoutSeconds: 60, states: ["c3": json(#"{"a":1}"#)])
        }
        await assertRefused(.tooManyStates(limit: 2)) { _ = try await a.setState(uuid: "u", channels: ["c4"], state: json(#"{"b":2}"#)) }
        let unchanged = try await a.whereNow(uuid: "u")
        XCTAssertEqual(unchanged, ["c1", "c2"], "a refused call changes nothing")
        let swap = try await a.heartbeat(uuid: "u", channels: ["c1", "c3"], timeoutSeconds: 60,
                                         states: ["c1": [], "c3": json(#"{"a":1}"#)])
        XCTAssertEqual(swap.map(\.action), [.stateChange, .join], "clearing one makes room for another")
    }

    private func keys(_ pattern: String) async throws -> [String] {
        let connection = try await connect()
        defer { Task { await connection.close() } }
        return try await connection.send(["KEYS", .text(pattern)]).array?.compactMap(\.string).sorted() ?? []
    }

    private func assertRefused(_ expected: PubNodeError, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () async throws -> Void) async {
        do {
            try await body()
            XCTFail("not refused", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? PubNodeError, expected, file: file, line: line)
        }
    }
}
