@testable import PubNodeClient
import XCTest
@testable import PubNodeCLI

/// Message parsing, colour rules and the text and JSON renderings, in process.
final class OutputTests: XCTestCase {
    func testMessagesAreJSONWhenTheyParseAndStringsOtherwise() {
        XCTAssertEqual(MessageInput.payload("hello"), .string("hello"))
        XCTAssertEqual(MessageInput.payload("hello world"), .string("hello world"))
        XCTAssertEqual(MessageInput.payload("42"), .int(42))
        XCTAssertEqual(MessageInput.payload("42", asString: true), .string("42"))
        XCTAssertEqual(MessageInput.payload("{\"a\":[1,true,null]}"), ["a": [1, true, nil]])
        XCTAssertEqual(MessageInput.payload("\"quoted\""), .string("quoted"))
        XCTAssertEqual(MessageInput.payload("{broken"), .string("{broken"))
        XCTAssertEqual(MessageInput.payload(""), .string(""))
    }

    func testTextPayloadsCannotDriveTheTerminalOrBreakLines() {
        let formatter = OutputFormatter(style: Style(enabled: false))
        XCTAssertEqual(formatter.text(of: .string("plain é")), "plain é")
        XCTAssertEqual(formatter.text(of: .string("a\nb\u{1B}[2Jc\t")), "a\\nb\\u001b[2Jc\\t")
        XCTAssertEqual(CLIError.shorten(#"Error Domain=NSURLErrorDomain Code=-1004 "(null)""#), "connection refused")
        XCTAssertEqual(CLIError.shorten(#"Error Domain=NSURLErrorDomain Code=-1 "(null)""#), "the connection failed (URL error -1)")
        XCTAssertEqual(CLIError.shorten(#"Error Domain=X Code=1 "bad thing" UserInfo={}"#), "bad thing")
    }

    func testColourOnlyOnATerminalWithoutNoColor() {
        XCTAssertTrue(Terminal.colorEnabled(isTerminal: true, environment: [:]))
        XCTAssertTrue(Terminal.colorEnabled(isTerminal: true, environment: ["NO_COLOR": ""]))
        XCTAssertFalse(Terminal.colorEnabled(isTerminal: true, environment: ["NO_COLOR": "1"]))
        XCTAssertFalse(Terminal.colorEnabled(isTerminal: false, environment: [:]))
        XCTAssertEqual(Style(enabled: false).red("x"), "x")
        XCTAssertEqual(Style(enabled: true).red("x"), "\u{1B}[31mx\u{1B}[0m")
    }

    private let message = ReceivedMessage(channel: "chat", subscription: "friends", payload: ["text": "hi"],
                                          publisher: "alice", timetoken: 17_952_634_067_723_888, meta: ["lang": "en"])

    func testMessageJSONRoundTrips() throws {
        let formatter = OutputFormatter(style: Style(enabled: false))
        let object = try JSONValue(jsonData: Data(formatter.json(message).utf8))
        XCTAssertEqual(object["type"], "message")
        XCTAssertEqual(object["channel"], "chat")
        XCTAssertEqual(object["subscription"], "friends")
        XCTAssertEqual(object["publisher"], "alice")
        XCTAssertEqual(object["timetoken"], "17952634067723888")
        XCTAssertEqual(object["time"], "2026-11-21T12:16:46.772Z")
        XCTAssertEqual(object["message"], ["text": "hi"])
        XCTAssertEqual(object["meta"], ["lang": "en"])
        let signal = try JSONValue(jsonData: Data(formatter.json(message, signal: true).utf8))
        XCTAssertEqual(signal["type"], "signal")
    }

    func testMessageTextShowsTimeChannelPublisherAndPayload() throws {
        let formatter = OutputFormatter(style: Style(enabled: false), timeZone: try XCTUnwrap(TimeZone(identifier: "UTC")))
        XCTAssertEqual(formatter.text(message),
                       "2026-11-21 12:16:46.772  chat (friends)  alice  {\"text\":\"hi\"}  meta={\"lang\":\"en\"}")
        var plain = message
        plain.payload = "just text"
        plain.meta = nil
        plain.subscription = nil
        XCTAssertEqual(formatter.text(plain, signal: true), "2026-11-21 12:16:46.772  chat  alice  signal  just text")
        let coloured = OutputFormatter(style: Style(enabled: true)).text(plain)
        XCTAssertTrue(coloured.contains("\u{1B}[36mchat\u{1B}[0m"))
    }

    func testPresenceAndHistoryRenderings() throws {
        let formatter = OutputFormatter(style: Style(enabled: false), timeZone: try XCTUnwrap(TimeZone(identifier: "UTC")))
        let change = PresenceChange(channel: "chat", subscription: nil, action: "leave", uuid: "bob", occupancy: 1,
                                    timestamp: 0, state: nil, join: [], leave: [], timeout: [],
                                    timetoken: 17_952_634_067_723_888)
        XCTAssertEqual(formatter.text(change), "2026-11-21 12:16:46.772  chat  leave  bob  occupancy 1")
        let object = try JSONValue(jsonData: Data(formatter.json(change).utf8))
        XCTAssertEqual(object["type"], "presence")
        XCTAssertEqual(object["action"], "leave")
        XCTAssertEqual(object["uuid"], "bob")
        XCTAssertEqual(object["occupancy"], 1)

        let stored = HistoryMessage(payload: "hello", timetoken: 17_952_634_067_723_888, publisher: nil, meta: .null)
        XCTAssertEqual(formatter.text(stored, channel: "chat"),
                       "17952634067723888  2026-11-21 12:16:46.772  chat  -  hello")
        let item = try JSONValue(jsonData: Data(formatter.json(stored, channel: "chat").utf8))
        XCTAssertEqual(item["message"], "hello")
        XCTAssertNil(item["meta"])
        XCTAssertNil(item["publisher"])
    }
}
