import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

private struct Greeting: Codable, Equatable {
    var text: String
    var count: Int
    var tags: [String]
}

/// Subscribe round trips, ordering, subscription changes under load and leave.
final class SubscribeTests: XCTestCase {
    func testRoundTripOfSeveralPayloadTypes() async throws {
        let node = try await TestNode.start()
        let publisher = node.client(userId: "pub")
        let subscriber = node.client(userId: "sub")
        let recorder = EventRecorder()
        subscriber.addListener(recorder)
        await subscribeConnected(subscriber, recorder, to: ["types"])
        let greeting = Greeting(text: "hi", count: 3, tags: ["a", "b"])
        try await publisher.publish(channel: "types", message: greeting, meta: ["kind": "greeting"] as JSONValue)
        try await publisher.publish(channel: "types", message: "plain")
        try await publisher.publish(channel: "types", message: 12_345_678_901_234_567 as Int64)
        try await publisher.publish(channel: "types", message: [1.5, 2.5])
        try await publisher.publish(channel: "types", message: true)
        try await publisher.publish(channel: "types", message: ["nested": ["x": nil, "y": [1, "two"]]] as JSONValue)
        await waitUntil { recorder.messages.count == 6 }
        let messages = recorder.messages
        XCTAssertEqual(try messages[0].decode(Greeting.self), greeting)
        XCTAssertEqual(messages[0].meta, ["kind": "greeting"])
        XCTAssertEqual(messages[0].publisher, "pub")
        XCTAssertEqual(messages[0].channel, "types")
        XCTAssertEqual(try messages[1].decode(String.self), "plain")
        XCTAssertEqual(try messages[2].decode(Int64.self), 12_345_678_901_234_567)
        XCTAssertEqual(try messages[3].decode([Double].self), [1.5, 2.5])
        XCTAssertEqual(try messages[4].decode(Bool.self), true)
        XCTAssertEqual(messages[5].payload, ["nested": ["x": nil, "y": [1, "two"]]])
        XCTAssertThrowsError(try messages[1].decode(Greeting.self))
        await subscriber.unsubscribeAll()
        try await node.shutdown()
    }

    func testHundredMessagesArriveInOrderOnTheStream() async throws {
        let node = try await TestNode.start()
        let client = node.client()
        let stream = client.events()
        let recorder = EventRecorder()
        await subscribeConnected(client, recorder, to: ["ordered"])
        let collector = Task { () -> [Int] in
            var seen: [Int] = []
            for await event in stream {
                if case .message(let message) = event, let value = try? message.decode(Int.self) {
                    seen.append(value)
                    if seen.count == 100 { break }
                }
            }
            return seen
        }
        for index in 0..<100 {
            try await client.publish(channel: "ordered", message: index)
        }
        let seen = await collector.value
        XCTAssertEqual(seen, Array(0..<100))
        await client.unsubscribeAll()
        try await node.shutdown()
    }

    func testSubscriptionChangesUnderLoadLoseNothing() async throws {
        let node = try await TestNode.start()
        let publisher = node.client(userId: "pub")
        let transport = RecordingTransport()
        // The subscriber's clock is manual: each unsubscribe's repeated leave (250 ms after the
        // last poll went out) is let through at once instead of waited for.
        let clock = ManualClock()
        let subscriber = node.client(userId: "sub", transport: transport, sleeper: clock)
        let recorder = EventRecorder()
        subscriber.addListener(recorder)
        await subscribeConnected(subscriber, recorder, to: ["load"])
        let publishing = Task {
            for index in 0..<200 {
                try await publisher.publish(channel: "load", message: index)
            }
        }
        for round in 0..<20 {
            let sent = transport.exchanges.count
            await subscriber.subscribe(to: ["extra-\(round)"])
            await waitUntil(5, "the long-poll with extra-\(round)") {
                transport.exchanges.dropFirst(sent).contains { $0.request.url.path.contains("extra-\(round)") }
            }
            let leaving = Task { await subscriber.unsubscribe(from: ["extra-\(round)"]) }
            let settled = await clock.advanceToSleeper(dueIn: .milliseconds(250))
            XCTAssertTrue(settled, "round \(round): \(clock.deadlines)")
            await leaving.value
        }
        try await publishing.value
        await waitUntil { recorder.messages.count >= 200 }
        // A last message fences the check: anything delivered twice would arrive before it.
        try await publisher.publish(channel: "load", message: "fence")
        await waitUntil(10, "the fence") { recorder.messages.contains { (try? $0.decode(String.self)) == "fence" } }
        let values = recorder.messages.filter { $0.channel == "load" }.compactMap { try? $0.decode(Int.self) }
        XCTAssertEqual(values, Array(0..<200), "each message once, in order")
        let subscribed = await subscriber.subscribedChannels
        XCTAssertEqual(subscribed, ["load"])
        let leaving = Task { await subscriber.unsubscribeAll() }
        _ = await clock.advanceToSleeper(dueIn: .milliseconds(250))
        await leaving.value
        try await node.shutdown()
    }

    func testStatusChangesAndUnsubscribeSendsLeave() async throws {
        let node = try await TestNode.start()
        let watcher = node.client(userId: "watcher")
        let client = node.client(userId: "leaver")
        let recorder = EventRecorder()
        let watched = EventRecorder()
        client.addListener(recorder)
        watcher.addListener(watched)
        await subscribeConnected(watcher, watched, to: ["room"], withPresence: true)
        await subscribeConnected(client, recorder, to: ["room"])
        await waitUntil { watched.presence.contains { $0.action == "join" && $0.uuid == "leaver" } }
        let here = try await watcher.hereNow(on: ["room"])
        XCTAssertEqual(here["room"]?.occupancy, 2)
        await client.unsubscribe(from: ["room"])
        await waitUntil { watched.presence.contains { $0.action == "leave" && $0.uuid == "leaver" } }
        XCTAssertEqual(recorder.statuses, [.connecting, .connected, .disconnected])
        let changes = recorder.events.filter { if case .subscriptionChanged = $0 { return true } else { return false } }
        XCTAssertEqual(changes.count, 2)
        await watcher.unsubscribeAll()
        try await node.shutdown()
    }

    func testChannelGroupSubscriptionReportsTheGroup() async throws {
        let node = try await TestNode.start()
        let client = node.client()
        try await client.add(channels: ["g1", "g2"], to: "grp")
        let recorder = EventRecorder()
        client.addListener(recorder)
        await subscribeConnected(client, recorder, to: [], groups: ["grp"])
        try await client.publish(channel: "g2", message: "via group")
        await waitUntil { recorder.messages.count == 1 }
        XCTAssertEqual(recorder.messages.first?.channel, "g2")
        XCTAssertEqual(recorder.messages.first?.subscription, "grp")
        await client.unsubscribeAll()
        try await node.shutdown()
    }

    func testNonRetryableSubscribeErrorDisconnectsWithTheServersMessage() async throws {
        let node = try await TestNode.start()
        let client = node.client()
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["bad:name"])
        await waitUntil { await client.connectionStatus == .disconnectedUnexpectedly }
        let errors = recorder.events.compactMap { if case .error(let error) = $0 { return error } else { return nil } }
        XCTAssertEqual(errors.first?.status, 400)
        XCTAssertTrue(errors.first?.message.hasPrefix("Invalid channel name") ?? false, "\(errors)")
        await client.unsubscribeAll()
        try await node.shutdown()
    }

    func testSubscribingFromATimetokenCatchesUp() async throws {
        let node = try await TestNode.start()
        let client = node.client()
        let first = try await client.publish(channel: "past", message: "one")
        try await client.publish(channel: "past", message: "two")
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["past"], at: first - 1)
        await waitUntil { recorder.messages.count == 2 }
        XCTAssertEqual(recorder.messages.map(\.payload), ["one", "two"])
        await client.unsubscribeAll()
        try await node.shutdown()
    }
}
