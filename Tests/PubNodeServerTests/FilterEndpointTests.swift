import Foundation
import NIOCore
import NIOEmbedded
import PubNodeCore
import XCTest

/// Subscribe filters (`filter-expr`) through the production pipeline.
final class FilterEndpointTests: XCTestCase {
    private func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    private func publish(_ node: EmbeddedNode, _ channel: String, _ payload: String, lang: String) throws -> String {
        try node.publish(channel, payload, query: "&meta=" + encoded(#"{"lang":"\#(lang)"}"#))
    }

    func testAFilteredSubscriberGetsOnlyMatchingMessagesAndItsCursorPassesTheOthers() throws {
        let node = EmbeddedNode()
        let filter = "&filter-expr=" + encoded("meta.lang == 'en'")
        let cursor = try node.handshake("f", query: filter)
        _ = try publish(node, "f", #""one""#, lang: "en")
        _ = try publish(node, "f", #""two""#, lang: "fr")
        _ = try publish(node, "f", #""three""#, lang: "en")
        let last = try publish(node, "f", #""four""#, lang: "de")
        let filtered = try node.get("/v2/subscribe/demo/f/0?tt=\(cursor)\(filter)")
        XCTAssertEqual(filtered.json["m"]?.arrayValue.compactMap { $0["d"]?.stringValue }, ["one", "three"])
        XCTAssertEqual(filtered.json["t"]?["t"]?.stringValue, last, "the cursor passes the rejected messages too")
        let everything = try node.get("/v2/subscribe/demo/f/0?tt=\(cursor)")
        XCTAssertEqual(everything.json["m"]?.arrayValue.compactMap { $0["d"]?.stringValue }, ["one", "two", "three", "four"])
    }

    func testFilterReadsThePayloadAndLegacyBareIdentifiersAndAppliesToSignals() throws {
        let node = EmbeddedNode()
        let filter = "&filter-expr=" + encoded("data.score > 5 && lang != spanish")
        let cursor = try node.handshake("g", query: filter)
        try node.publish("g", #"{"score":9}"#, query: "&meta=" + encoded(#"{"lang":"spanish"}"#))
        try node.publish("g", #"{"score":2}"#)
        try node.publish("g", #"{"score":7}"#)
        let signal = try node.get("/signal/demo/demo/0/g/0/" + encoded(#"{"score":1}"#) + "?uuid=s")
        XCTAssertEqual(signal.status, 200)
        let response = try node.get("/v2/subscribe/demo/g/0?tt=\(cursor)\(filter)")
        XCTAssertEqual(response.json["m"]?.arrayValue.compactMap { $0["d"]?["score"] }, [.number("7")])
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, signal.json[2]?.stringValue)
    }

    func testAParkedFilteredPollWaitsThroughRejectedPublishesAndWakesOnAMatch() throws {
        let node = EmbeddedNode()
        let filter = "&filter-expr=" + encoded("meta.lang == 'en'")
        let cursor = try node.handshake("p", query: filter)
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/p/0?tt=\(cursor)\(filter) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try subscriber.response())
        _ = try publish(node, "p", #""no""#, lang: "fr")
        XCTAssertNil(try subscriber.response(), "a rejected message must not answer the poll")
        let match = try publish(node, "p", #""yes""#, lang: "en")
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["m"]?.arrayValue.compactMap { $0["d"]?.stringValue }, ["yes"])
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, match)
    }

    /// Parks an English-only poll on `channel`, then publishes a French message it rejects: the
    /// poll stays parked with its cursor moved past it. Returns the poll's connection and the
    /// rejected message's timetoken.
    private func parkPastARejectedMessage(_ node: EmbeddedNode, _ channel: String) throws -> (Connection, String) {
        let filter = "&filter-expr=" + encoded("meta.lang == 'en'")
        let cursor = try node.handshake(channel, query: filter)
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/\(channel)/0?tt=\(cursor)\(filter) HTTP/1.1\r\nHost: x\r\n\r\n")
        let rejected = try publish(node, channel, #""no""#, lang: "fr")
        XCTAssertNil(try subscriber.response())
        return (subscriber, rejected)
    }

    func testATimedOutFilteredPollAnswersWithTheCursorPastRejectedMessages() throws {
        var limits = Limits()
        limits.longPollTimeoutSeconds = 5
        let node = EmbeddedNode(limits: limits)
        let (subscriber, rejected) = try parkPastARejectedMessage(node, "t")
        subscriber.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["m"], .array([]))
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, rejected)
    }

    func testADrainedFilteredPollAnswersWithTheCursorPastRejectedMessages() throws {
        let (subscriber, rejected) = try parkPastARejectedMessage(EmbeddedNode(), "q")
        subscriber.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let response = try XCTUnwrap(subscriber.response())
        XCTAssertEqual(response.json["m"], .array([]))
        XCTAssertEqual(response.json["t"]?["t"]?.stringValue, rejected, "the moved cursor, not the client's")
    }

    func testPollsWithDifferentFiltersWokenTogetherDoNotShareAnswers() throws {
        let node = EmbeddedNode()
        let english = "&filter-expr=" + encoded("meta.lang == 'en'")
        let french = "&filter-expr=" + encoded("meta.lang == 'fr'")
        let cursor = try node.handshake("s")
        let loop = EmbeddedEventLoop()
        let (first, second, plain) = (try node.connect(on: loop), try node.connect(on: loop), try node.connect(on: loop))
        try first.send("GET /v2/subscribe/demo/s/0?tt=\(cursor)\(english) HTTP/1.1\r\nHost: x\r\n\r\n")
        try second.send("GET /v2/subscribe/demo/s/0?tt=\(cursor)\(french) HTTP/1.1\r\nHost: x\r\n\r\n")
        try plain.send("GET /v2/subscribe/demo/s/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try publish(node, "s", #""hello""#, lang: "en")
        loop.run()
        XCTAssertEqual(try XCTUnwrap(first.response()).json["m"]?[0]?["d"], .string("hello"))
        XCTAssertNil(try second.response(), "the French poll stays parked")
        XCTAssertEqual(try XCTUnwrap(plain.response()).json["m"]?[0]?["d"], .string("hello"))
    }

    func testPresenceEventsPassEveryFilter() throws {
        let node = EmbeddedNode()
        let filter = "&filter-expr=" + encoded("meta.lang == 'en'")
        let cursor = try node.handshake("room-pnpres", query: filter)
        _ = try node.get("/v2/subscribe/demo/room/0?tt=0&uuid=joiner")
        let response = try node.get("/v2/subscribe/demo/room-pnpres/0?tt=\(cursor)\(filter)")
        XCTAssertEqual(response.json["m"]?[0]?["d"]?["action"], .string("join"))
    }

    func testAMalformedFilterIsRefusedWith481() throws {
        let node = EmbeddedNode()
        for query in ["tt=0", "tt=15000000000000000"] {
            let response = try node.get("/v2/subscribe/demo/m/0?\(query)&filter-expr=" + encoded("meta.lang = 'en'"))
            XCTAssertEqual(response.status, 481)
            XCTAssertEqual(response.json["status"], .number("481"))
            XCTAssertEqual(response.json["error"], .bool(true))
            XCTAssertEqual(response.json["service"], .string("Subscribe"))
            XCTAssertEqual(response.json["message"]?.stringValue?.hasPrefix("Invalid filter expression: "), true)
        }
        let long = try node.get("/v2/subscribe/demo/m/0?tt=0&filter-expr=" + encoded(String(repeating: "(", count: 3_000)))
        XCTAssertEqual(long.status, 481)
        XCTAssertEqual(try node.get("/v2/subscribe/demo/m/0?tt=0&filter-expr=").status, 200, "an empty filter filters nothing")
    }

    func testManySubscribersWithOneFilterCompileItOnce() throws {
        let node = EmbeddedNode()
        for index in 0..<20 {
            _ = try node.get("/v2/subscribe/demo/c\(index)/0?tt=0&filter-expr=" + encoded("meta.lang == 'en'"))
        }
        XCTAssertEqual(node.node.filters.count(.message), 1)
    }
}
