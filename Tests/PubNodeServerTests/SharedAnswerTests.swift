import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// Subscribers woken together on one event loop share identical answers; others still get their own.
final class SharedAnswerTests: XCTestCase {
    func testSubscribersOnOneLoopWithTheSameCursorGetIdenticalAnswersAndOthersTheirOwn() throws {
        let node = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let early = try node.handshake("room")
        try node.publish("room", #""before""#)
        let cursor = try node.handshake("room")
        var same: [Connection] = []
        for _ in 0..<3 {
            let connection = try node.connect(on: loop)
            try connection.send("GET /v2/subscribe/demo/room/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
            same.append(connection)
        }
        let behind = try node.connect(on: loop)
        try behind.send("GET /v2/subscribe/demo/room/0?tt=\(early) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try behind.response()?.json["m"]?.arrayValue.count, 1, "a stale cursor is answered at once")
        try behind.send("GET /v2/subscribe/demo/room,other/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        for connection in same { XCTAssertNil(try connection.response()) }
        XCTAssertNil(try behind.response())

        let timetoken = try node.publish("room", #""shared""#)
        loop.run()
        let answers = try same.map { try XCTUnwrap($0.response()) }
        XCTAssertEqual(Set(answers.map(\.body)).count, 1, "same channel and cursor: byte-identical answers")
        XCTAssertEqual(answers[0].json["m"]?[0]?["d"], .string("shared"))
        XCTAssertEqual(answers[0].json["t"]?["t"]?.stringValue, timetoken)
        let multiplexed = try XCTUnwrap(behind.response())
        XCTAssertEqual(multiplexed.messagePayloads, [.string("shared")])
        for connection in same + [behind] { XCTAssertTrue(connection.isOpen) }
    }

    func testPollsThatFindTheSameMessagesInOneTurnShareOneAnswer() throws {
        let node = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let cursor = try node.handshake("room")
        let english = "&meta=%7B%22lang%22%3A%22en%22%7D"
        try node.publish("room", #""one""#, query: english)
        /// Sends a poll behind the message; read now, answered when the loop runs.
        func poll(uuid: String, version: String = "1.1", filter: String = "") throws -> Connection {
            let connection = try node.connect(on: loop)
            try connection.send("GET /v2/subscribe/demo/room/0?tt=\(cursor)&uuid=\(uuid)\(filter) HTTP/\(version)\r\nHost: x\r\n\r\n")
            return connection
        }
        func answer(_ connection: Connection, line: UInt = #line) throws -> ByteBuffer {
            try XCTUnwrap(connection.channel.readOutbound(as: ByteBuffer.self), line: line)
        }
        func messages(_ bytes: ByteBuffer) throws -> [JSON?] {
            try XCTUnwrap(Response.parse(bytes)?.messagePayloads)
        }
        let turn = [try poll(uuid: "a"), try poll(uuid: "b"), try poll(uuid: "c", version: "1.0"),
                    try poll(uuid: "d", filter: "&filter-expr=meta.lang%20%3D%3D%20%27en%27")]
        XCTAssertNil(try turn[0].channel.readOutbound(as: ByteBuffer.self), "answered with the loop's batch, not when read")
        loop.run()
        let answers = try turn.map { try answer($0) }
        XCTAssertEqual(try messages(answers[0]), [.string("one")])
        XCTAssertTrue(Self.sameStorage(answers[0], answers[1]), "the same messages for the same key: rendered once")
        // Another HTTP version or a filter is another key, and renders its own.
        XCTAssertFalse(Self.sameStorage(answers[0], answers[2]))
        XCTAssertFalse(Self.sameStorage(answers[0], answers[3]))
        XCTAssertEqual(try messages(answers[3]), [.string("one")])
        // The next turn renders again, and reads what the buffer holds then.
        try node.publish("room", #""two""#, query: english)
        let later = try poll(uuid: "e")
        loop.run()
        let third = try answer(later)
        XCTAssertFalse(Self.sameStorage(answers[0], third))
        XCTAssertEqual(try messages(third), [.string("one"), .string("two")])
        XCTAssertEqual(node.node.hub()?.waiterCount(on: "room"), 0, "none of them registered on the channel")
    }

    func testFiltersShareOnlyWhenTheirBytesAreEqual() throws {
        typealias Key = SharedAnswers.Key
        let room = try XCTUnwrap(Self.hub("demo").state(of: Subscription(channels: ["room"])))
        func key(_ filter: String?) -> Key {
            Key(channelID: ObjectIdentifier(room), cursor: Timetoken(1), filter: filter.map { .init(text: $0) }, minorVersion: 1, keepAlive: true)
        }
        let composed = "meta.lang == '\u{E9}'", decomposed = "meta.lang == 'e\u{301}'"
        XCTAssertEqual(composed, decomposed, "Swift calls them equal")
        XCTAssertNotEqual(key(composed), key(decomposed), "filters compare bytes, so answers must not be shared")
        XCTAssertEqual(key(composed), key("meta.lang == '\u{E9}'"))
        XCTAssertNotEqual(key(nil), key(""))
        let answers = SharedAnswers()
        answers.keep(.init(bytes: ByteBuffer(string: "x"), batch: DeliveryBatch(deliveries: [], next: Timetoken(1)),
                           channel: room),
                     for: key(composed))
        XCTAssertNotNil(answers.answer(for: key(composed)))
        XCTAssertNil(answers.answer(for: key(decomposed)))
    }

    /// The key names one channel of one keyset by its state: another channel, or the same name in
    /// another keyset, is another key; the same channel's state found again is the same key.
    func testAKeyIsOneChannelOfOneKeyset() throws {
        let demo = Self.hub("demo"), other = Self.hub("other")
        func key(_ hub: ChannelHub, _ channel: String) throws -> SharedAnswers.Key {
            SharedAnswers.Key(channelID: ObjectIdentifier(try XCTUnwrap(hub.state(of: Subscription(channels: [channel])))), cursor: Timetoken(1),
                              filter: nil, minorVersion: 1, keepAlive: true)
        }
        XCTAssertEqual(try key(demo, "room"), try key(demo, "room"))
        XCTAssertEqual(try key(demo, "room").hashValue, try key(demo, "room").hashValue)
        XCTAssertNotEqual(try key(demo, "room"), try key(demo, "hall"))
        XCTAssertNotEqual(try key(demo, "room"), try key(other, "room"), "another keyset's channel of the same name")
        let answers = SharedAnswers()
        let room = try XCTUnwrap(demo.state(of: Subscription(channels: ["room"])))
        answers.keep(.init(bytes: ByteBuffer(string: "x"), batch: DeliveryBatch(deliveries: [], next: Timetoken(1)),
                           channel: room),
                     for: try key(demo, "room"))
        XCTAssertNotNil(answers.answer(for: try key(demo, "room")))
        XCTAssertNil(answers.answer(for: try key(other, "room")))
    }

    /// A key names its channel's state by identity only; the answer kept under it holds the
    /// state, so the identity cannot pass to another state while the answer is kept.
    func testAKeptAnswerHoldsItsChannelsState() throws {
        var answers: SharedAnswers? = SharedAnswers()
        weak var weakState: ChannelState?
        let key: SharedAnswers.Key
        do {
            let state = try XCTUnwrap(Self.hub("demo").state(of: Subscription(channels: ["room"])))
            weakState = state
            key = SharedAnswers.Key(channelID: ObjectIdentifier(state), cursor: Timetoken(1), filter: nil, minorVersion: 1, keepAlive: true)
            answers?.keep(.init(bytes: ByteBuffer(string: "x"), batch: DeliveryBatch(deliveries: [], next: Timetoken(1)),
                                channel: state),
                          for: key)
        }
        XCTAssertNotNil(weakState, "held by the kept answer alone (its hub is gone)")
        XCTAssertEqual(key.channel, weakState.map(ObjectIdentifier.init))
        XCTAssertNotNil(answers?.answer(for: key))
        answers = nil
        XCTAssertNil(weakState, "let go with the answers")
    }

    private static func hub(_ subscribeKey: String) -> ChannelHub {
        ChannelHub(subscribeKey: subscribeKey, limits: Limits(), clock: TimetokenClock())
    }

    private static func sameStorage(_ a: ByteBuffer, _ b: ByteBuffer) -> Bool {
        a.withUnsafeReadableBytes { first in b.withUnsafeReadableBytes { second in first.baseAddress == second.baseAddress } }
    }
}
