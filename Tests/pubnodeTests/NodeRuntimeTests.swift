import Foundation
import Logging
import PubNodeCore
import PubNodeHistorySQLite
import PubNodeServer
import ServiceLifecycle
import XCTest
@testable import pubnode

final class NodeRuntimeTests: XCTestCase {
    func testWithoutSettingsTheNodeServesDemoOnLoopback8090WithHistoryInPubnodeData() throws {
        let configuration = try NodeConfiguration.resolve(file: nil, environment: [:], flags: [])
        XCTAssertEqual(configuration.server.host, "127.0.0.1")
        XCTAssertEqual(configuration.server.port, 8090)
        XCTAssertEqual(configuration.keysets, [.demo])
        XCTAssertEqual(configuration.historyDatabasePath, "./pubnode-data/history.sqlite")
        XCTAssertTrue(configuration.history.policy(for: "demo").enabled)
        XCTAssertEqual(configuration.sweepIntervalSeconds, 10)
        XCTAssertEqual(configuration.server.loopScheduling, .automatic)
    }

    func testTheSchedulingSettingReachesTheServer() throws {
        let configuration = try NodeConfiguration.resolve(file: nil, environment: ["PUBNODE_EVENT_LOOP_SCHEDULING": "Normal"],
                                                          flags: [])
        XCTAssertEqual(configuration.server.loopScheduling, .normal)
        let flagged = try NodeConfiguration.resolve(file: nil, environment: [:], flags: ["--event-loop-scheduling", "batch"])
        XCTAssertEqual(flagged.server.loopScheduling, .batch)
    }

    func testTheRunningNodeSweepsOnItsClockAndCommitsHistoryWhenDrained() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-runtime-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = NodeConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 1
        configuration.dataDirectory = directory.path
        let clock = ManualNodeClock()
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let runtime = try NodeRuntime.make(configuration, clock: clock, logger: Logger(label: "test")) { listening.yield($0) }
        XCTAssertEqual(runtime.services.sweeps.count, 3, "presence, channels, history")
        let group = runtime.services.group(signals: [], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let listened = await iterator.next()
        let port = try XCTUnwrap(listened)
        let base = "http://127.0.0.1:\(port)"

        // A uuid present for 60 s, and a subscriber of the channel's presence events.
        _ = try await HTTPGet.get("\(base)/v2/presence/sub-key/demo/channel/room/heartbeat?uuid=u1&heartbeat=60")
        let handshake = try await HTTPGet.json("\(base)/v2/subscribe/demo/room-pnpres/0?uuid=watcher")
        let cursor = try XCTUnwrap(HTTPGet.cursor(handshake))
        let poll = Task { try await HTTPGet.get("\(base)/v2/subscribe/demo/room-pnpres/0?uuid=watcher&tt=\(cursor)&tr=1") }

        // Every sweep is asleep on the manual clock; 61 s later the presence sweep times u1 out.
        await clock.sleepers(atLeast: 3)
        clock.advance(by: .seconds(61))
        let events = try await poll.value
        XCTAssertEqual(events.status, 200)
        XCTAssertTrue(events.body.contains("timeout") && events.body.contains("u1"), events.body)

        // An hour later the channel sweep has expired the event and reclaimed the idle channel.
        let hub = try XCTUnwrap((runtime.node.broker as? MemoryBroker)?.hub("demo"))
        XCTAssertGreaterThan(hub.channelCount, 0)
        await clock.sleepers(atLeast: 3)
        clock.advance(by: .seconds(3700))
        await clock.sleepers(atLeast: 3)
        XCTAssertEqual(hub.channelCount, 0)

        let published = try await HTTPGet.get("\(base)/publish/demo/demo/0/chat/0/%22kept%22")
        XCTAssertTrue(published.body.hasPrefix("[1,\"Sent\""), published.body)
        await group.triggerGracefulShutdown()
        try await running.value
        XCTAssertEqual(clock.sleeperCount, 0, "the sweeps stopped")

        let store = SQLiteHistoryStore(database: try HistoryDatabase.file(path: configuration.historyDatabasePath))
        XCTAssertEqual(try store.count(subscribeKey: "demo", channel: "chat", after: Timetoken(0), limit: 10,
                                       now: clock.nowNanoseconds()), 1, "committed before the node stopped")
    }
}
