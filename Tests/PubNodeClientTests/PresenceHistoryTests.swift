import Foundation
import PubNodeClient
import PubNodeCore
import PubNodeTestSupport
import XCTest

/// Presence and history calls against a real node.
final class PresenceHistoryTests: XCTestCase {
    func testHereNowWhereNowAndState() async throws {
        let node = try await TestNode.start()
        let alice = node.client(userId: "alice")
        let bob = node.client(userId: "bob")
        let recorder = EventRecorder()
        await subscribeConnected(alice, recorder, to: ["lobby", "side"])
        await subscribeConnected(bob, recorder, to: ["lobby"])
        let stored = try await alice.setPresence(state: ["mood": "ok"] as JSONValue, on: ["lobby"])
        XCTAssertEqual(stored, ["mood": "ok"])
        let one = try await bob.hereNow(on: ["lobby"], includeState: true)
        XCTAssertEqual(one["lobby"]?.occupancy, 2)
        XCTAssertEqual(one["lobby"]?.occupants.map(\.uuid).sorted(), ["alice", "bob"])
        XCTAssertEqual(one["lobby"]?.occupants.first { $0.uuid == "alice" }?.state, ["mood": "ok"])
        let several = try await bob.hereNow(on: ["lobby", "side"])
        XCTAssertEqual(several["side"]?.occupancy, 1)
        let everywhere = try await bob.hereNow(on: [], includeUUIDs: false)
        XCTAssertEqual(everywhere["lobby"]?.occupancy, 2)
        XCTAssertEqual(everywhere["lobby"]?.occupants, [])
        let channels = try await bob.whereNow(uuid: "alice")
        XCTAssertEqual(channels.sorted(), ["lobby", "side"])
        let state = try await bob.getPresenceState(for: "alice", on: ["lobby"])
        XCTAssertEqual(state, ["lobby": ["mood": "ok"]])
        let states = try await bob.getPresenceState(for: "alice", on: ["lobby", "side"])
        XCTAssertEqual(states, ["lobby": ["mood": "ok"], "side": [:]])
        await alice.unsubscribeAll()
        await bob.unsubscribeAll()
        try await node.shutdown()
    }

    func testHeartbeatTimerKeepsTheClientPresent() async throws {
        // One manual clock is both the node's wall time (presence timeouts) and the client's timer.
        let clock = ManualClock()
        let node = try await TestNode.start(wall: clock)
        let transport = RecordingTransport()
        let client = node.client(userId: "beater", presenceTimeout: 20, heartbeatInterval: 15,
                                 transport: transport, sleeper: clock)
        let recorder = EventRecorder()
        await subscribeConnected(client, recorder, to: ["beat"])
        // The subscribe alone keeps it present for 20 s: only heartbeats can keep it longer.
        let timing = await eventually { clock.hasSleeper(dueIn: .seconds(15)) }
        XCTAssertTrue(timing, "the heartbeat timer waits its 15 s interval: \(clock.deadlines)")
        clock.advance(by: .seconds(15))
        await waitUntil(5, "a heartbeat answered by the node") { !transport.answered(pathSuffix: "/heartbeat").isEmpty }
        clock.advance(by: .seconds(10))
        _ = node.node.sweepPresence()
        let here = try await client.hereNow(on: ["beat"])
        XCTAssertEqual(here["beat"]?.occupants.map(\.uuid), ["beater"], "25 s after the subscribe, present thanks to the heartbeat")
        await client.unsubscribeAll()
        let after = try await client.hereNow(on: ["beat"])
        XCTAssertEqual(after["beat"]?.occupancy ?? 0, 0, "the leave removed it at once")
        try await node.shutdown()
    }

    func testFetchCountAndDeleteHistory() async throws {
        let node = try await TestNode.start()
        let client = node.client(userId: "writer")
        var timetokens: [UInt64] = []
        for index in 0..<5 {
            timetokens.append(try await client.publish(channel: "log", message: ["n": .int(Int64(index))] as JSONValue))
        }
        try await client.publish(channel: "log", message: "not kept", shouldStore: false)
        try await client.publish(channel: "other", message: "x", storeTTL: 1)
        let fetched = try await client.fetchMessageHistory(for: ["log", "other"])
        XCTAssertEqual(fetched["log"]?.map(\.timetoken), timetokens)
        XCTAssertEqual(fetched["log"]?.first?.publisher, "writer")
        XCTAssertEqual(try fetched["other"]?.first?.decode(String.self), "x")
        let page = try await client.fetchMessageHistory(for: ["log"], max: 2)
        XCTAssertEqual(page["log"]?.map(\.timetoken), Array(timetokens.suffix(2)))
        let counts = try await client.messageCounts(channels: ["log", "other"], since: timetokens[1])
        XCTAssertEqual(counts, ["log": 3, "other": 1])
        let perChannel = try await client.messageCounts(channels: ["log": timetokens[3], "other": 0])
        XCTAssertEqual(perChannel, ["log": 1, "other": 1])
        try await client.deleteMessageHistory(from: "log", start: timetokens[2] + 1, end: timetokens[2])
        let afterOne = try await client.fetchMessageHistory(for: ["log"])
        XCTAssertEqual(afterOne["log"]?.map(\.timetoken), [timetokens[0], timetokens[1], timetokens[3], timetokens[4]])
        try await client.deleteMessageHistory(from: "log")
        let afterAll = try await client.fetchMessageHistory(for: ["log"])
        XCTAssertNil(afterAll["log"])
        do {
            _ = try await client.fetchMessageHistory(for: ["log"], max: 1000)
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual(error.status, 400)
            XCTAssertTrue(error.message.hasPrefix("Invalid Arguments"), error.message)
        }
        try await node.shutdown()
    }
}
