import NIOCore
import NIOExtras
import PubNodeCore
import XCTest

final class SubscribeEndpointTests: XCTestCase {
    func testHandshakeAnswersAtOnceWithCursorAndNoMessages() throws {
        let node = EmbeddedNode()
        try node.publish("h", "1")
        let response = try node.get("/v2/subscribe/demo/h/0?tt=0&uuid=x")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.json["m"], .array([]))
        XCTAssertEqual(response.json["t"]?["r"], .number("1"))
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue?.count, 17)
    }

    func testParkedSubscribeIsWokenByPublishOnAnotherConnection() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("live")
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/live/0?tt=\(cursor)&uuid=s HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try subscriber.response(), "a subscribe with nothing newer must park")
        let timetoken = try node.publish("live", #""wake""#)
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, timetoken)
        XCTAssertEqual(response.json["m"]?[0]?["d"], .string("wake"))
    }

    func testCatchUpReturnsOnlyTheLatestBufferedMessagesInOrder() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("cu")
        for index in 0..<120 { try node.publish("cu", String(index)) }
        let response = try node.get("/v2/subscribe/demo/cu/0?tt=\(cursor)")
        let payloads = response.json["m"]!.arrayValue.compactMap { $0["d"]?.stringValue }
        XCTAssertEqual(payloads, (20..<120).map(String.init))
    }

    func testResponsesArePagedAtOneHundredAcrossChannels() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("x,y")
        for index in 0..<80 {
            try node.publish("x", String(index))
            try node.publish("y", String(index))
        }
        let first = try node.get("/v2/subscribe/demo/x,y/0?tt=\(cursor)")
        XCTAssertEqual(first.json["m"]?.arrayValue.count, 100)
        let next = try XCTUnwrap(first.json["t"]?["t"]?.stringValue)
        XCTAssertEqual(next, first.json["m"]?[99]?["p"]?["t"]?.stringValue)
        let second = try node.get("/v2/subscribe/demo/x,y/0?tt=\(next)")
        XCTAssertEqual(second.json["m"]?.arrayValue.count, 60)
    }

    func testMultiplexWildcardAndGroupMatchesCarryTheirSubscription() throws {
        let node = EmbeddedNode()
        XCTAssertEqual(try node.get("/v1/channel-registration/sub-key/demo/channel-group/grp?add=g1,g2").status, 200)
        let cursor = try node.handshake("plain,news.*", query: "&channel-group=grp")
        try node.publish("plain", "1")
        try node.publish("news.sport", "2")
        try node.publish("news.sport.live", "3")
        try node.publish("newsX", "4")
        try node.publish("g2", "5")
        let response = try node.get("/v2/subscribe/demo/plain,news.*/0?tt=\(cursor)&channel-group=grp")
        let seen = response.json["m"]!.arrayValue.map { [$0["c"]?.stringValue ?? "", $0["b"]?.stringValue ?? "-"] }
        XCTAssertEqual(seen, [["plain", "-"], ["news.sport", "news.*"], ["news.sport.live", "news.*"], ["g2", "grp"]])
    }

    func testGroupOnlySubscribeUsesCommaChannelSegmentAndSeesLiveMembershipChanges() throws {
        let node = EmbeddedNode()
        XCTAssertEqual(try node.get("/v1/channel-registration/sub-key/demo/channel-group/live?add=first").status, 200)
        let cursor = try node.handshake(",", query: "&channel-group=live")
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/,/0?tt=\(cursor)&channel-group=live HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try subscriber.response())
        XCTAssertEqual(try node.get("/v1/channel-registration/sub-key/demo/channel-group/live?add=added").status, 200)
        try node.publish("added", #""late""#)
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["m"]?[0]?["c"], .string("added"))
        XCTAssertEqual(response.json["m"]?[0]?["b"], .string("live"))
    }

    func testLongPollTimesOutWithSameCursorAndNoMessages() throws {
        var limits = Limits()
        limits.longPollTimeoutSeconds = 5
        let node = EmbeddedNode(limits: limits)
        let cursor = try node.handshake("quiet")
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/quiet/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        subscriber.channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        XCTAssertNil(try subscriber.response())
        subscriber.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, cursor)
        XCTAssertEqual(response.json["m"], .array([]))
    }

    func testAPollParkedAgainOnTheSameConnectionTimesOutAfterItsOwnFullTimeout() throws {
        var limits = Limits()
        limits.longPollTimeoutSeconds = 5
        let node = EmbeddedNode(limits: limits)
        let cursor = try node.handshake("again")
        let subscriber = try node.connect()
        let loop = subscriber.channel.embeddedEventLoop
        try subscriber.send("GET /v2/subscribe/demo/again/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        loop.advanceTime(by: .seconds(3))
        let next = try node.publish("again", "1")
        XCTAssertEqual(try XCTUnwrap(subscriber.response()).json["t"]?["t"]?.stringValue, next)
        try subscriber.send("GET /v2/subscribe/demo/again/0?tt=\(next) HTTP/1.1\r\nHost: x\r\n\r\n")
        loop.advanceTime(by: .seconds(2))
        XCTAssertNil(try subscriber.response(), "the first poll's deadline must not answer the second")
        loop.advanceTime(by: .seconds(2))
        XCTAssertNil(try subscriber.response())
        loop.advanceTime(by: .seconds(1))
        let response = try XCTUnwrap(subscriber.response(), "answered 5 s after it parked")
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, next)
        XCTAssertEqual(response.json["m"], .array([]))
        let last = try node.publish("again", "2")
        try subscriber.send("GET /v2/subscribe/demo/again/0?tt=\(next) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(subscriber.response()).json["t"]?["t"]?.stringValue, last,
                       "the connection keeps serving after its timer fired")
    }

    func testDisconnectReleasesTheParkedPoll() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("gone")
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/gone/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try subscriber.response())
        XCTAssertEqual(node.node.hub()?.waiterCount(on: "gone"), 1, "the poll is parked")
        _ = try subscriber.channel.close().wait()
        XCTAssertEqual(node.node.hub()?.waiterCount(on: "gone"), 0, "the closed connection's poll must be unregistered")
    }

    func testDrainAnswersParkedPollsWithTheirCursor() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("d")
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/d/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try subscriber.response())
        subscriber.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, cursor)
        XCTAssertEqual(response.headers["connection"], "close")
    }

    func testKeysetsAreIsolated() throws {
        let node = EmbeddedNode(keysets: [.demo, Keyset(publishKey: "p2", subscribeKey: "s2")])
        let cursor = try node.get("/v2/subscribe/s2/shared/0?tt=0").json["t"]!["t"]!.stringValue!
        try node.publish("shared", "1")
        let other = try node.connect()
        try other.send("GET /v2/subscribe/s2/shared/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try other.response(), "a demo publish must not reach subscribe key s2")
        XCTAssertEqual(try node.get("/publish/p2/s2/0/shared/0/2").status, 200)
        XCTAssertEqual(try other.response()?.json["m"]?[0]?["k"], .string("s2"))
        XCTAssertEqual(try node.get("/publish/demo/s2/0/shared/0/2").status, 400, "key pairs must match")
    }
}
