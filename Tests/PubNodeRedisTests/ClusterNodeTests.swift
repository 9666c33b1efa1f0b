import Logging
import NIOCore
import NIOPosix
import PubNodeCore
@testable import PubNodeRedis
import PubNodeTestSupport
import Synchronization
import XCTest

/// Nodes sharing one real `redis-server`, each with its own `RedisBroker`: what one accepts reaches
/// subscribers on the others, in one order, and a cursor carries from node to node.
final class ClusterNodeTests: RedisServerTestCase {
    private var members: [RedisBroker] = []

    override func tearDown() {
        let members = self.members
        let done = expectation(description: "links closed")
        Task {
            for broker in members { await broker.stop() }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        super.tearDown()
    }

    /// A node on this test's Redis, connected.
    private func member(limits: Limits = Limits()) async throws -> Node {
        let wall = ClusterWallClock(base: SystemWallClock())
        let clock = TimetokenClock(wall: wall)
        let hubs = MemoryHubs(limits: limits, clock: clock)
        let broker = RedisBroker(address: try RedisAddress(url: server.url), loop: group.next(), hubs: hubs, limits: limits,
                                 clock: clock, wall: wall, logger: Logger(label: "test.cluster"))
        members.append(broker)
        broker.start()
        await waitUntil(10, "the link to Redis") { broker.isUp }
        return Node(keysets: [.demo], limits: limits, broker: broker, presence: RedisPresenceStore(broker: broker), clock: clock)
    }

    private func publish(_ node: Node, _ channel: String, _ text: String) async throws -> Timetoken {
        try await node.publish(PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: channel,
                                              payload: Array("\"\(text)\"".utf8))).timetoken
    }

    /// Parks `waiter` on `channels`/`groups` of `node` after `cursor` until the cluster topics are
    /// received here; returns what was ready at once, if anything.
    private func park(_ node: Node, _ channels: [String], groups: [String] = [], after cursor: Timetoken,
                      _ waiter: TestWaiter) async throws -> DeliveryBatch? {
        let subscription = try Subscription(channelNames: channels, groupNames: groups, limits: node.limits)
        let broker = try XCTUnwrap(node.broker.keyset("demo"))
        if let ready = broker.park(waiter, on: subscription, after: cursor) { return ready }
        // Not yet received here: the waiter is woken once it is; parking again registers it.
        await waitUntil(10, "the topics to be received") { waiter.wakeCount > 0 }
        return broker.park(waiter, on: subscription, after: cursor)
    }

    private func read(_ node: Node, _ channels: [String], groups: [String] = [], after cursor: Timetoken) throws -> [String] {
        let subscription = try Subscription(channelNames: channels, groupNames: groups, limits: node.limits)
        return node.broker.keyset("demo")!.read(subscription, after: cursor).deliveries.map { String(decoding: $0.message.payload, as: UTF8.self) }
    }

    func testAMessageAcceptedByOneNodeReachesAParkedSubscriberOnAnother() async throws {
        let (a, b) = (try await member(), try await member())
        let cursor = b.time()
        let waiter = TestWaiter()
        let ready = try await park(b, ["news"], after: cursor, waiter)
        XCTAssertNil(ready, "nothing published yet: the poll stays parked")
        let woken = waiter.wakeCount
        let timetoken = try await publish(a, "news", "hello")
        await waitUntil(10, "the push") { waiter.wakeCount > woken }
        XCTAssertEqual(try read(b, ["news"], after: cursor), ["\"hello\""])
        XCTAssertEqual(b.broker.keyset("demo")!.read(try Subscription(channelNames: ["news"], groupNames: [], limits: Limits()),
                                                     after: cursor).next, timetoken, "the cluster's timetoken")
    }

    func testACursorFromOneNodeCatchesUpOnAnotherWithinTheBuffer() async throws {
        let (a, b) = (try await member(), try await member())
        var issued: [Timetoken] = []
        for index in 0..<6 { issued.append(try await publish(a, "log", "m\(index)")) }
        // Nobody on b ever received "log": its first poll reads the shared buffer.
        let ready = try await park(b, ["log"], after: issued[1], TestWaiter())
        XCTAssertEqual(ready?.deliveries.map(\.message.timetoken), Array(issued[2...]), "exactly what it missed, in order")
    }

    func testAPollAskingWhetherMessagesWaitIsToldOnlyOnceTheSharedBufferIsHere() async throws {
        let (a, b) = (try await member(), try await member())
        let issued = try await publish(a, "backlog", "m")
        let broker = try XCTUnwrap(b.broker.keyset("demo"))
        let subscription = try Subscription(channelNames: ["backlog"], groupNames: [], limits: b.limits)
        let waiter = TestWaiter()
        let cursor = Timetoken(rawValue: issued.rawValue - 1)
        if !broker.parkUnlessReady(waiter, on: subscription, after: cursor) {
            // Not yet received here: woken once it is, then asked again.
            await waitUntil(10, "the topic to be received") { waiter.wakeCount > 0 }
            XCTAssertTrue(broker.parkUnlessReady(waiter, on: subscription, after: cursor), "the shared buffer holds it")
        }
        XCTAssertEqual(try read(b, ["backlog"], after: cursor), ["\"m\""], "and the read that follows finds it")
        let parked = TestWaiter()
        XCTAssertFalse(broker.parkUnlessReady(parked, on: subscription, after: issued), "nothing after the newest: parked")
        let woken = parked.wakeCount
        _ = try await publish(a, "backlog", "n")
        await waitUntil(10, "the push") { parked.wakeCount > woken }
    }

    func testTimetokensFollowOneOrderAcrossNodesAndChannels() async throws {
        let (a, b, c) = (try await member(), try await member(), try await member())
        let cursor = c.time()
        _ = try await park(c, ["one", "two"], after: cursor, TestWaiter())
        var issued: [Timetoken] = []
        for index in 0..<40 {
            issued.append(try await publish(index % 2 == 0 ? a : b, index % 3 == 0 ? "one" : "two", "m\(index)"))
        }
        XCTAssertEqual(issued, issued.sorted(), "each later publish has a later timetoken, whichever node took it")
        await waitUntil(10, "every push") { (try? self.read(c, ["one", "two"], after: cursor).count) == 40 }
        XCTAssertEqual(try read(c, ["one", "two"], after: cursor), (0..<40).map { "\"m\($0)\"" })
    }

    func testGroupsAndPatternsAreSharedAndFollowedWhileParked() async throws {
        let (a, b) = (try await member(), try await member())
        _ = try await a.channelGroups(ChannelGroupRequest(subscribeKey: "demo", action: .add(group: "g", channels: ["x"])))
        let listed = try await b.channelGroups(ChannelGroupRequest(subscribeKey: "demo", action: .listChannels(group: "g")))
        XCTAssertEqual(listed, .channels(group: "g", ["x"]))
        let cursor = b.time()
        let waiter = TestWaiter()
        let parked = try await park(b, ["w.*"], groups: ["g"], after: cursor, waiter)
        XCTAssertNil(parked)
        // A channel added on another node while b's subscriber is parked: b follows the change.
        _ = try await a.channelGroups(ChannelGroupRequest(subscribeKey: "demo", action: .add(group: "g", channels: ["late"])))
        await waitUntil(10, "the group change") { (try? b.broker.keyset("demo")!.channels(inGroup: "g")) == ["late", "x"] }
        await waitUntil(10, "the new channel to be received") {
            (b.broker as! RedisBroker).cluster.topics.get(.channel(subscribeKey: "demo", name: "late"))?.inner.withLock { $0.phase == .ready } == true
        }
        _ = try await publish(a, "late", "to-late")
        _ = try await publish(a, "w.x", "to-w")
        await waitUntil(10, "both pushes") { (try? self.read(b, ["w.*"], groups: ["g"], after: cursor).count) == 2 }
        XCTAssertEqual(try read(b, ["w.*"], groups: ["g"], after: cursor), ["\"to-late\"", "\"to-w\""])
        let names = try await b.channelGroups(ChannelGroupRequest(subscribeKey: "demo", action: .listGroups()))
        XCTAssertEqual(names, .groups(["g"], next: nil))
    }

    func testPublishesAreRefusedWhileRedisIsAwayAndParkedPollsResumeAfter() async throws {
        let (a, b) = (try await member(), try await member())
        let cursor = b.time()
        let waiter = TestWaiter()
        let parked = try await park(b, ["c"], after: cursor, waiter)
        XCTAssertNil(parked)
        let port = server.port
        server.destroy()
        await waitUntil(10, "the link to notice") { !(a.broker as! RedisBroker).isUp }
        do {
            _ = try await publish(a, "c", "lost")
            XCTFail("a publish without Redis must be refused")
        } catch let error as PubNodeError {
            XCTAssertEqual(error, .unavailable("the cluster's Redis is unreachable"))
        }
        // Started from the main thread, as `setUp` does, so `tearDown` can wait for it to exit.
        server = try await MainActor.run { try RedisServerProcess.start(port: port) }
        await waitUntil(15, "both links back") { (a.broker as! RedisBroker).isUp && (b.broker as! RedisBroker).isUp }
        // b receives "c" again (its topic is warmed anew) and its parked poll gets what follows.
        await waitUntil(10, "b to receive c again") {
            (b.broker as! RedisBroker).cluster.topics.get(.channel(subscribeKey: "demo", name: "c"))?.inner.withLock { $0.phase == .ready } == true
        }
        _ = try await publish(a, "c", "after")
        await waitUntil(10, "the push after the restart") { (try? self.read(b, ["c"], after: cursor)) == ["\"after\""] }
    }

    func testPresenceIsSharedAndEachChangeIsAnnouncedOnce() async throws {
        let (a, b, c) = (try await member(), try await member(), try await member())
        let cursor = c.time()
        _ = try await park(c, ["room-pnpres"], after: cursor, TestWaiter())
        // Each uuid polls twice on its own node and once on another: still one join each.
        for (node, uuid) in [(a, "alice"), (b, "bob"), (a, "alice"), (b, "bob"), (b, "alice")] {
            _ = try node.subscribe(SubscribeRequest(subscribeKey: "demo", channels: ["room"], uuid: uuid))
        }
        await waitUntil(10, "both joins") { (try? self.read(c, ["room-pnpres"], after: cursor).count) == 2 }
        let here = try await c.hereNow(PresenceRequest(subscribeKey: "demo", channels: ["room"]), query: OccupancyQuery()).value()
        XCTAssertEqual(here.channels.first?.occupancy, 2)
        XCTAssertEqual(Set(here.channels.first?.occupants.map(\.uuid) ?? []), ["alice", "bob"], "users of every node")
        let whereNow = try await b.whereNow(PresenceRequest(subscribeKey: "demo"), of: "alice").value()
        XCTAssertEqual(whereNow, ["room"])
        try a.leave(PresenceRequest(subscribeKey: "demo", channels: ["room"], uuid: "alice"))
        await waitUntil(10, "the leave") { (try? self.read(c, ["room-pnpres"], after: cursor).count) == 3 }
        let events = try read(c, ["room-pnpres"], after: cursor)
        XCTAssertEqual(events.filter { $0.contains("\"join\"") }.count, 2)
        XCTAssertTrue(events[2].contains("\"leave\"") && events[2].contains("alice"), events[2])
    }

    /// A long-poll client as the HTTP front drives one: park, and when woken read (the production
    /// path), until `enough` says so or 20 s pass.
    private func listen(_ node: Node, _ channels: [String], after start: Timetoken,
                        until enough: ([Timetoken]) -> Bool) async throws -> [Timetoken] {
        let subscription = try Subscription(channelNames: channels, groupNames: [], limits: node.limits)
        let broker = try XCTUnwrap(node.broker.keyset("demo"))
        var (cursor, received) = (start, [Timetoken]())
        let deadline = ContinuousClock.now + .seconds(20)
        while !enough(received), ContinuousClock.now < deadline {
            let waiter = TestWaiter()
            var batch = broker.park(waiter, on: subscription, after: cursor)
            if batch == nil {
                _ = await eventually(timeout: .milliseconds(500)) { waiter.wakeCount > 0 }
                broker.cancel(waiter, on: subscription)
                batch = broker.read(subscription, after: cursor)
            }
            received += batch!.deliveries.map(\.message.timetoken)
            cursor = batch!.next
        }
        return received
    }

    func testAMultiChannelListenerMissesNothingAcrossALostSubscriberConnection() async throws {
        let (a, b) = (try await member(), try await member())
        let start = b.time()
        _ = try await park(b, ["x", "y"], after: start, TestWaiter())
        let admin = try await connect()
        let total = 120
        let progress = Mutex<(acknowledged: [Timetoken], refused: Int, done: Bool)>(([], 0, false))
        let link = (a.broker as! RedisBroker).link
        let publisher = Task { [a] in
            var index = 0
            while index < total {
                if index == total / 2, progress.withLock({ $0.refused == 0 }) {
                    // Redis drops every pub/sub connection: the nodes reconnect and catch up.
                    _ = try? await admin.send(["CLIENT", "KILL", "TYPE", "pubsub"])
                }
                let request = PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: index % 2 == 0 ? "x" : "y",
                                             payload: Array("\"m\(index)\"".utf8))
                // A publish cut off with its connection answers 503 though Redis may have run it:
                // such a message may or may not arrive.
                let timetoken = try? await a.publish(request).timetoken
                progress.withLock { progress in
                    if let timetoken { progress.acknowledged.append(timetoken) } else { progress.refused += 1 }
                }
                if timetoken == nil {
                    _ = await eventually { link.isUp }
                } else {
                    index += 1
                }
            }
            progress.withLock { $0.done = true }
        }
        let received = try await listen(b, ["x", "y"], after: start) { received in
            progress.withLock { $0.done && Set(received).isSuperset(of: $0.acknowledged) }
        }
        await publisher.value
        let (acknowledged, refused, _) = progress.withLock { $0 }
        XCTAssertEqual(received, received.sorted(), "in timetoken order")
        XCTAssertEqual(Set(received).count, received.count, "each once")
        XCTAssertTrue(Set(received).isSuperset(of: acknowledged), "every acknowledged message arrives")
        XCTAssertLessThanOrEqual(received.count - acknowledged.count, refused, "nothing but what was sent")
        XCTAssertEqual(acknowledged.count, total)
        await admin.close()
    }
}
