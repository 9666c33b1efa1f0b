import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// Time, publish, signal, fire, channel groups and errors against a real node.
final class PublishTests: XCTestCase {
    func testTimeIsASeventeenDigitTimetoken() async throws {
        let node = try await TestNode.start()
        let time = try await node.client().time()
        XCTAssertEqual(String(time).count, 17)
        try await node.shutdown()
    }

    func testPublishGetAndCompressedPostAreStoredByteExact() async throws {
        let node = try await TestNode.start()
        let client = node.client(userId: "alice")
        let first = try await client.publish(channel: "pub", message: ["text": "héllo / world?&"] as JSONValue,
                                             meta: ["m": 1] as JSONValue, customMessageType: "chat-msg")
        let big = String(repeating: "x", count: 70_000 / 10)
        let second = try await client.publish(channel: "pub", message: ["big": .string(big)] as JSONValue, shouldCompress: true)
        XCTAssertLessThan(first, second)
        let history = try await client.fetchMessageHistory(for: ["pub"], includeMeta: true, includeCustomMessageType: true)
        let items = try XCTUnwrap(history["pub"])
        XCTAssertEqual(items.map(\.timetoken), [first, second])
        XCTAssertEqual(items[0].payload, ["text": "héllo / world?&"])
        XCTAssertEqual(items[0].meta, ["m": 1])
        XCTAssertEqual(items[0].publisher, "alice")
        XCTAssertEqual(items[0].customMessageType, "chat-msg")
        XCTAssertEqual(items[1].payload["big"]?.stringValue?.count, big.count)
        try await node.shutdown()
    }

    func testFireIsNotDeliveredAndSignalIs() async throws {
        let node = try await TestNode.start()
        let client = node.client()
        let recorder = EventRecorder()
        client.addListener(recorder)
        await subscribeConnected(client, recorder, to: ["sig"])
        try await client.fire(channel: "sig", message: "fired")
        try await client.signal(channel: "sig", message: "typing")
        await waitUntil { recorder.signals.count == 1 }
        XCTAssertEqual(recorder.signals.first?.payload, "typing")
        XCTAssertTrue(recorder.messages.isEmpty, "a fire never reaches subscribers")
        await client.unsubscribeAll()
        try await node.shutdown()
    }

    func testErrorsCarryTheServersStatusAndMessage() async throws {
        let node = try await TestNode.start()
        let client = node.client()
        do {
            try await client.signal(channel: "sig", message: String(repeating: "s", count: 100))
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual(error, .server(status: 400, message: "Signal size too large"))
        }
        let wrongKey = PubNodeClient(configuration: PubNodeConfiguration(
            publishKey: "nope", subscribeKey: "demo", userId: "u", origin: "127.0.0.1:\(node.port)"))
        do {
            try await wrongKey.publish(channel: "c", message: 1)
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual(error.status, 400)
            XCTAssertEqual(error.message, "Invalid Key")
        }
        do {
            _ = try await client.hereNow(on: ["bad,name"])
        } catch {
            XCTAssertEqual(error.status, 400)
        }
        try await node.shutdown()
        do {
            _ = try await client.time()
            XCTFail("expected a transport error")
        } catch {
            guard case .transport = error else { return XCTFail("got \(error)") }
        }
    }

    func testChannelGroupsAddListRemoveDelete() async throws {
        let node = try await TestNode.start()
        let client = node.client()
        try await client.add(channels: ["a", "b"], to: "team")
        let listed = try await client.listChannels(for: "team")
        XCTAssertEqual(listed.sorted(), ["a", "b"])
        let groups = try await client.listChannelGroups()
        XCTAssertEqual(groups, ["team"])
        try await client.remove(channels: ["a"], from: "team")
        let remaining = try await client.listChannels(for: "team")
        XCTAssertEqual(remaining, ["b"])
        try await client.remove(channelGroup: "team")
        let afterDelete = try await client.listChannels(for: "team")
        XCTAssertEqual(afterDelete, [])
        try await node.shutdown()
    }

    func testGzipWriterProducesAValidMember() async throws {
        // Checked end to end above (the node inflates it); here the CRC of a known vector.
        XCTAssertEqual(Self.crcOfCheckString(), 0xCBF4_3926)
        let repetitive = String(repeating: "{\"k\":\"value\"},", count: 1000)
        let size = try XCTUnwrap(GzipProbe.compressedSize(repetitive))
        XCTAssertLessThan(size, repetitive.utf8.count / 10, "zlib really compresses")
    }

    private static func crcOfCheckString() -> UInt32 { GzipProbe.crc32("123456789") }
}
