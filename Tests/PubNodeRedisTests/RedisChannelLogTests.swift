import NIOCore
import NIOPosix
import PubNodeCore
@testable import PubNodeRedis
import XCTest

/// The channel log against a real `redis-server`: timetokens, trimming, catch-up and pushes.
final class RedisChannelLogTests: RedisServerTestCase {
    private func record(_ text: String) -> ClusterRecord {
        ClusterRecord(draft: PublishDraft(channel: "c", payload: Array("\"\(text)\"".utf8)), publishedAtNanoseconds: 1)
    }

    func testTimetokensAreUniqueIncreasingAndNearWallTimeAcrossConnections() async throws {
        let log = RedisChannelLog(capacity: 1_000)
        let nodes = [try await connect(), try await connect(), try await connect()]
        let before = UInt64(Date().timeIntervalSince1970 * 10_000_000)
        // Three "nodes" append 300 messages at once, pipelined, to one channel.
        let appends = (0..<300).map { index in
            log.append(record("m\(index)"), subscribeKey: "demo", channel: "hot", on: nodes[index % 3])
        }
        var issued: [Timetoken] = []
        for append in appends { issued.append(try await append.get()) }
        XCTAssertEqual(Set(issued).count, 300, "every timetoken unique")
        let read = try await log.read(subscribeKey: "demo", channel: "hot", after: .zero, limit: 1_000, on: nodes[0]).get()
        XCTAssertEqual(read.messages.map(\.timetoken), issued.sorted(), "the stream holds them in timetoken order")
        XCTAssertEqual(read.messages.map(\.timetoken), read.messages.map(\.timetoken).sorted())
        XCTAssertNil(read.droppedThrough)
        let after = UInt64(Date().timeIntervalSince1970 * 10_000_000)
        XCTAssertGreaterThanOrEqual(issued.min()!.rawValue + 10_000_000, before, "within a second of wall time")
        XCTAssertLessThanOrEqual(issued.max()!.rawValue, after + 10_000_000)
        for node in nodes { await node.close() }
    }

    func testTheBufferIsTrimmedAndACatchUpSeesWhatItMissed() async throws {
        let log = RedisChannelLog(capacity: 100)
        let redis = try await connect()
        var issued: [Timetoken] = []
        for index in 0..<130 {
            issued.append(try await log.append(record("m\(index)"), subscribeKey: "demo", channel: "c", on: redis).get())
        }
        let all = try await log.read(subscribeKey: "demo", channel: "c", after: .zero, limit: 500, on: redis).get()
        XCTAssertEqual(all.messages.map(\.timetoken), Array(issued[30...]))
        XCTAssertEqual(all.droppedThrough, issued[29], "the newest dropped timetoken, for the gap signal")
        XCTAssertEqual(all.messages.first?.record.payload, Array("\"m30\"".utf8))
        let tail = try await log.read(subscribeKey: "demo", channel: "c", after: issued[120], limit: 5, on: redis).get()
        XCTAssertEqual(tail.messages.map(\.timetoken), Array(issued[121...125]))
        let none = try await log.read(subscribeKey: "demo", channel: "quiet", after: .zero, limit: 5, on: redis).get()
        XCTAssertEqual(none, RedisChannelLog.Read(messages: [], droppedThrough: nil))
        await redis.close()
    }

    func testKeysetsAndChannelsNeverShareKeys() {
        let log = RedisChannelLog()
        XCTAssertNotEqual(log.streamKey("a:b", "c"), log.streamKey("a", "b:c"))
        XCTAssertNotEqual(log.topic("demo", "x"), log.streamKey("demo", "x"))
    }

    func testSubscribedNodesReceiveEachAppendOnceWithItsTimetoken() async throws {
        let log = RedisChannelLog()
        let pushes = AsyncStream<RedisPushMessage>.makeStream()
        let subscriber = try await RedisSubscriber.connect(to: RedisAddress(url: server.url), on: group) {
            pushes.continuation.yield($0)
        }
        try await subscriber.subscribe([log.topic("demo", "live")]).get()
        let redis = try await connect()
        var record = record("hello")
        record.publisher = "ann"
        record.meta = Array(#"{"lang":"en"}"#.utf8)
        record.customMessageType = "chat-msg"
        record.ttlHours = 5
        let timetoken = try await log.append(record, subscribeKey: "demo", channel: "live", on: redis).get()
        var iterator = pushes.stream.makeAsyncIterator()
        let push = await iterator.next()
        let (pushed, decoded) = try RedisChannelLog.decodePush(try XCTUnwrap(push).payload)
        XCTAssertEqual(pushed, timetoken)
        XCTAssertEqual(decoded, record)
        await subscriber.close()
        await redis.close()
    }

    func testRecordsRoundTripAndHostileRecordsAreRefused() throws {
        var full = ClusterRecord(draft: PublishDraft(channel: "c", payload: Array("[1,2]".utf8), meta: Array("{}".utf8),
                                                     publisher: "ü", kind: .signal, customMessageType: "t-1",
                                                     store: false, ttlHours: 70_000), publishedAtNanoseconds: .max)
        XCTAssertEqual(try ClusterRecord(decoding: full.encoded), full)
        full.meta = nil
        full.publisher = nil
        XCTAssertEqual(try ClusterRecord(decoding: full.encoded), full)
        XCTAssertEqual(full.draft(channel: "x").channel, "x")
        let encoded = Array(buffer: full.encoded)
        for hostile: [UInt8] in [[], [2], [1, 9], [1, 0, 64], Array(encoded.prefix(5)), [1, 0, 4] + [UInt8](repeating: 0, count: 8) + [255, 255, 255, 255],
                                 [1, 0, 4] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 2, 0xC3, 0x28]] {
            XCTAssertThrowsError(try ClusterRecord(decoding: ByteBuffer(bytes: hostile)), "\(hostile)")
        }
    }
}
