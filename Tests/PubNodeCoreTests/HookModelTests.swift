import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class HookModelTests: XCTestCase {
    struct Pass: BeforeHookHandler {
        func before(_ event: HookEvent) async throws -> HookDecision { .pass }
    }

    private func binding(_ name: String, _ channels: [String], trigger: HookTrigger = .beforePublish,
                         key: String = "demo") -> HookBinding {
        HookBinding(name: name, trigger: trigger, subscribeKey: key, channels: channels, handler: .before(Pass()))
    }

    func testIndexMatchesExactWildcardAndKeysetWideInConfigurationOrder() {
        let index = HookIndex([binding("all", ["*"]), binding("exact", ["chat.room.1"]), binding("wide", ["chat.*"]),
                               binding("narrow", ["chat.room.*"]), binding("other", ["news"]),
                               binding("elsewhere", ["*"], key: "other")])
        XCTAssertEqual(index.matches(.beforePublish, subscribeKey: "demo", channel: "chat.room.1"), [0, 1, 2, 3])
        XCTAssertEqual(index.matches(.beforePublish, subscribeKey: "demo", channel: "chat.lobby"), [0, 2])
        XCTAssertEqual(index.matches(.beforePublish, subscribeKey: "demo", channel: "chatter"), [0])
        XCTAssertEqual(index.matches(.beforePublish, subscribeKey: "demo", channel: "news"), [0, 4])
        XCTAssertEqual(index.matches(.beforeSignal, subscribeKey: "demo", channel: "news"), [])
        XCTAssertEqual(index.matches(.beforePublish, subscribeKey: "other", channel: "x"), [5])
        XCTAssertEqual(index.matches(.beforePublish, subscribeKey: "none", channel: "x"), [])
        XCTAssertTrue(index.has(.beforePublish, in: "demo"))
        XCTAssertFalse(index.has(.afterPublish, in: "demo"))
    }

    func testBindingValidationRefusesBadNamesAndMismatchedHandlers() {
        XCTAssertThrowsError(try binding("bad", ["a.b.c.*"]).validate())
        XCTAssertThrowsError(try binding("bad", ["x-pnpres"]).validate())
        XCTAssertThrowsError(try binding("", ["a"]).validate())
        XCTAssertThrowsError(try binding("empty", []).validate())
        XCTAssertThrowsError(try binding("after", ["a"], trigger: .afterPublish).validate(), "a before handler on an after trigger")
        XCTAssertNoThrow(try binding("ok", ["a.*", "a.b.*", "plain", "*"]).validate())
        XCTAssertThrowsError(try HookEngine(bindings: [binding("same", ["a"]), binding("same", ["b"])]))
    }

    func testDecisionParsing() throws {
        XCTAssertEqual(try HookDecision.parse(reply: []), .pass)
        XCTAssertEqual(try HookDecision.parse(reply: Array(" \n".utf8)), .pass)
        XCTAssertEqual(try HookDecision.parse(reply: Array(#"{"action":"pass"}"#.utf8)), .pass)
        XCTAssertEqual(try HookDecision.parse(reply: Array(#"{"action":"modify","message":{"n":123456789012345678901}}"#.utf8)),
                       .modify(message: Array(#"{"n":123456789012345678901}"#.utf8), meta: nil))
        XCTAssertEqual(try HookDecision.parse(reply: Array(#"{"action":"modify","meta":{"m":1}}"#.utf8)),
                       .modify(message: nil, meta: Array(#"{"m":1}"#.utf8)))
        XCTAssertEqual(try HookDecision.parse(reply: Array(#"{"action":"abort","status":451,"text":"nope"}"#.utf8)),
                       .abort(status: 451, text: "nope"))
        XCTAssertEqual(try HookDecision.parse(reply: Array(#"{"action":"abort"}"#.utf8)), .abort(status: 403, text: "Refused by hook"))
        for bad in ["not json", "[1]", #"{"action":"explode"}"#, #"{"action":"modify"}"#, #"{"action":"abort","status":200}"#,
                    #"{"action":"modify","meta":[1]}"#, #"{"action":"pass""#] {
            XCTAssertThrowsError(try HookDecision.parse(reply: Array(bad.utf8)), bad) { error in
                guard case .malformedReply = error as? HookFailure else { return XCTFail("\(bad): \(error)") }
            }
        }
    }

    func testBackoffDoublesCapsAndJitters() {
        let base = Duration.milliseconds(100), cap = Duration.seconds(1)
        XCTAssertEqual(Backoff.delay(attempt: 1, base: base, maximum: cap, random: 0), .milliseconds(50))
        XCTAssertEqual(Backoff.delay(attempt: 1, base: base, maximum: cap, random: 1), .milliseconds(100))
        XCTAssertEqual(Backoff.delay(attempt: 3, base: base, maximum: cap, random: 1), .milliseconds(400))
        XCTAssertEqual(Backoff.delay(attempt: 9, base: base, maximum: cap, random: 1), .seconds(1))
        XCTAssertEqual(Backoff.delay(attempt: 500, base: base, maximum: cap, random: 0.5), .milliseconds(750))
    }

    func testEventBodyIsJSONAndReadsBack() throws {
        let message = #"{"big":123456789012345678901234567890,"s":"é\n"}"#
        let event = HookEvent(trigger: .afterPublish, action: .publish, subscribeKey: "demo", channel: "chat.\"1\"",
                              message: Array(message.utf8), meta: Array(#"{"m":true}"#.utf8), uuid: "u-1",
                              timetoken: Timetoken(17_000_000_000_000_000), customMessageType: "text")
        let body = event.body()
        XCTAssertTrue(JSONValidator().isValidUTF8JSON(body), String(decoding: body, as: UTF8.self))
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains(message), "the message is relayed byte-exact")
        XCTAssertEqual(HookEvent(body: body), event)

        let minimal = HookEvent(trigger: .beforeSignal, action: .signal, subscribeKey: "k", channel: "c", message: Array("1".utf8))
        XCTAssertEqual(String(decoding: minimal.body(), as: UTF8.self),
                       #"{"event":"before-signal","action":"signal","subscribeKey":"k","channel":"c","message":1}"#)
        XCTAssertEqual(HookEvent(body: minimal.body()), minimal)

        let presence = HookEvent(presence: PresenceEvent(channel: "room", action: .join, uuid: "u", occupancy: 3, timestamp: 99,
                                                         state: Array(#"{"mood":"ok"}"#.utf8)), subscribeKey: "demo")!
        XCTAssertEqual(String(decoding: presence.body(), as: UTF8.self),
                       #"{"event":"after-presence","action":"join","subscribeKey":"demo","channel":"room","uuid":"u","occupancy":3,"timestamp":99,"state":{"mood":"ok"}}"#)
        XCTAssertEqual(HookEvent(body: presence.body()), presence)
        XCTAssertNil(HookEvent(presence: PresenceEvent(channel: "room", action: .interval, uuid: nil, occupancy: 30, timestamp: 1),
                               subscribeKey: "demo"), "interval summaries are not hook events")
        XCTAssertNil(HookEvent(body: Array("{}".utf8)))
    }
}
