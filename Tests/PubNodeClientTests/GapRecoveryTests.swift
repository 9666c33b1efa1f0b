import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// A client that was away longer than a channel's buffer still sees every stored message exactly
/// once, in order: the node names the gap, the client fills it from history.
final class GapRecoveryTests: XCTestCase {
    func testAClientAwayForMoreThanTheBufferReceivesEveryStoredMessageOnceInOrder() async throws {
        let node = try await TestNode.start()
        let publisher = node.client(userId: "pub")
        let cursor = node.node.time().rawValue
        for index in 0..<350 { try await publisher.publish(channel: "away", message: index) }
        let subscriber = node.client(userId: "back")
        let recorder = EventRecorder()
        subscriber.addListener(recorder)
        await subscriber.subscribe(to: ["away"], at: cursor)
        await waitUntil { recorder.messages.count >= 350 }
        try await publisher.publish(channel: "away", message: 350)
        await waitUntil { recorder.messages.count >= 351 }
        XCTAssertEqual(recorder.messages.compactMap { try? $0.decode(Int.self) }, Array(0...350),
                       "250 messages from history, then the buffer's 100, then the live one")
        XCTAssertEqual(recorder.messages.first?.publisher, "pub")
        await subscriber.unsubscribeAll()
        try await node.shutdown()
    }

    func testGapsOfSeveralChannelsAreMergedInTimetokenOrder() async throws {
        let node = try await TestNode.start()
        let publisher = node.client(userId: "pub")
        let cursor = node.node.time().rawValue
        var expected: [String] = []
        for index in 0..<130 {
            let channel = index % 2 == 0 ? "even" : "odd"
            try await publisher.publish(channel: channel, message: "\(channel)-\(index)")
            expected.append("\(channel)-\(index)")
        }
        for index in 0..<120 {
            try await publisher.publish(channel: "even", message: "even-late-\(index)")
            expected.append("even-late-\(index)")
        }
        let subscriber = node.client(userId: "back")
        let recorder = EventRecorder()
        subscriber.addListener(recorder)
        await subscriber.subscribe(to: ["even", "odd"], at: cursor)
        await waitUntil { recorder.messages.count >= expected.count }
        XCTAssertEqual(recorder.messages.compactMap { try? $0.decode(String.self) }, expected)
        await subscriber.unsubscribeAll()
        try await node.shutdown()
    }

    func testWithoutGapFillingOnlyTheBufferIsDelivered() async throws {
        let node = try await TestNode.start()
        let publisher = node.client(userId: "pub")
        let cursor = node.node.time().rawValue
        for index in 0..<150 { try await publisher.publish(channel: "plain", message: index) }
        var configuration = PubNodeConfiguration(publishKey: "demo", subscribeKey: "demo", userId: "raw", origin: node.origin)
        configuration.fillsGapsFromHistory = false
        let subscriber = PubNodeClient(configuration: configuration)
        let recorder = EventRecorder()
        subscriber.addListener(recorder)
        await subscriber.subscribe(to: ["plain"], at: cursor)
        await waitUntil { recorder.messages.count >= 100 }
        try await publisher.publish(channel: "plain", message: 150)
        await waitUntil { recorder.messages.count >= 101 }
        XCTAssertEqual(recorder.messages.compactMap { try? $0.decode(Int.self) }, Array(50...150))
        await subscriber.unsubscribeAll()
        try await node.shutdown()
    }
}
