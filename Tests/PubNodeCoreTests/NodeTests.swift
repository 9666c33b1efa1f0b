@testable import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

/// An engine with one in-process after-publish hook on every channel of `demo`; its workers are
/// not started, so tests read the events it queued.
final class RecordingHooks: Sendable {
    struct Ignore: AfterHookHandler {
        func after(_ delivery: HookDelivery) async throws {}
    }

    let engine: HookEngine

    init() {
        engine = try! HookEngine(bindings: [HookBinding(name: "record", trigger: .afterPublish, subscribeKey: "demo",
                                                        channels: ["*"], handler: .after(Ignore()))])
    }

    /// Takes the fires queued for the hook, oldest first.
    var fired: [HookEvent] {
        engine.outboxes.values.flatMap { $0.takeIncoming() }
            .compactMap { HookEvent(body: $0.body) }
            .filter { $0.action == .fire }
    }
}

final class NodeTests: NodeTestCase {

    // MARK: Accepted publishes

    func testPublishBuffersTheMessageAndReturnsItsTimetokenAndWaiters() throws {
        let node = node()
        let waiter = TestWaiter()
        XCTAssertNil(try node.keyset("demo").park(waiter, on: Fixture.subscription(["ch"]), after: .zero))
        let result = try node.publishNow(request("ch", "{\"hello\":\"world\"}"))
        XCTAssertEqual(result.timetoken.rawValue, ManualClock.start / 100)
        XCTAssertEqual(result.message.timetoken, result.timetoken)
        XCTAssertEqual(waiter.wakeCount, 1, "the parked waiter is woken")
        let deliveries = try buffered(node)
        XCTAssertEqual(deliveries.payloads, ["{\"hello\":\"world\"}"])
        XCTAssertTrue(deliveries.first?.message === result.message)
        XCTAssertEqual(result.message.kind, .message)
        XCTAssertTrue(result.message.store)
    }

    // MARK: Keys and authorization

    func testUnknownKeysAreRefused() {
        let authorizer = RecordingAuthorizer()
        let node = node(keysets: [Keyset(publishKey: "p1", subscribeKey: "s1"), Keyset(publishKey: "p2", subscribeKey: "s2")],
                              authorizer: authorizer)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request(publishKey: "p1", subscribeKey: "nope")) }, .invalidKey)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request(publishKey: "wrong", subscribeKey: "s1")) }, .invalidKey)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request(publishKey: "p2", subscribeKey: "s1")) }, .invalidKey,
                       "a publish key of another keyset")
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.keyset("p1") }, .invalidKey)
        XCTAssertTrue(authorizer.requests.isEmpty, "refused keys never reach the authorizer")
        XCTAssertNoThrow(try node.publishNow(request(publishKey: "p2", subscribeKey: "s2")))
    }

    func testSeveralPublishKeysMayShareASubscribeKey() throws {
        let node = node(keysets: [Keyset(publishKey: "p1", subscribeKey: "s"), Keyset(publishKey: "p2", subscribeKey: "s")])
        _ = try node.publishNow(request("ch", "1", publishKey: "p1", subscribeKey: "s"))
        _ = try node.publishNow(request("ch", "2", publishKey: "p2", subscribeKey: "s"))
        XCTAssertEqual(try buffered(node, key: "s").payloads, ["1", "2"])
    }

    func testTheAuthorizerSeesEachOperationAndCanRefuseIt() throws {
        let authorizer = RecordingAuthorizer(refusing: [.signal])
        let node = node(authorizer: authorizer)
        _ = try node.publishNow(request("ch", uuid: "u1", authKey: "secret"))
        _ = try node.publishNow(request("ch", store: false, noReplication: true))
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", kind: .signal)) }, .forbidden("refused signal"))

        let requests = authorizer.requests
        XCTAssertEqual(requests.map(\.operation), [.publish, .fire, .signal])
        XCTAssertEqual(requests.first?.subscribeKey, "demo")
        XCTAssertEqual(requests.first?.publishKey, "demo")
        XCTAssertEqual(requests.first?.channels, ["ch"])
        XCTAssertEqual(requests.first?.groups, [])
        XCTAssertEqual(requests.first?.uuid, "u1")
        XCTAssertEqual(requests.first?.authKey, "secret")
        XCTAssertEqual(try buffered(node).count, 1, "only the publish was buffered")
    }

    // MARK: Channel and payload validation

    func testWildcardChannelIsRefused() throws {
        let node = node()
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("a.*")) }, .publishToWildcard("a.*"))
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("*")) }, .publishToWildcard("*"))
        XCTAssertTrue(try buffered(node, "a.b").isEmpty)
    }

    func testInvalidChannelIsRefused() {
        let node = node()
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("")) }, .invalidChannel("", .empty))
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("a:b")) }, .invalidChannel("a:b", .forbiddenCharacter))
        let long = String(repeating: "c", count: 2049)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request(long)) }, .invalidChannel(long, .tooLong))
    }

    func testInvalidJSONIsRefused() throws {
        let node = node()
        for payload in ["", "{", "[1,]", "'x'", "01", "1 2", "{\"a\":1,}", "\"unterminated"] {
            XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", payload)) }, .invalidJSON,
                           payload.debugDescription)
        }
        XCTAssertTrue(try buffered(node).isEmpty)
    }

    func testInvalidUTF8IsRefusedAsInvalidJSON() {
        let node = node()
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],                 // a byte that never occurs in UTF-8
            [0x22, 0xC0, 0xAF, 0x22],           // overlong encoding of "/"
            [0x22, 0xE2, 0x82, 0x22],           // truncated sequence
            [0x22, 0xED, 0xA0, 0x80, 0x22],     // encoded surrogate
        ]
        for payload in cases {
            XCTAssertTrue(JSONValidator().isValid(payload), "the JSON grammar alone accepts \(payload)")
            var request = request("ch")
            request.payload = payload
            XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(request) }, .invalidJSON, "\(payload)")
        }
    }

    func testInvalidMetaIsRefused() throws {
        let node = node()
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", meta: "{")) }, .invalidMeta)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", meta: "{'a':1}")) }, .invalidMeta)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", meta: "")) }, .invalidMeta)
        var request = request("ch", meta: "{}")
        request.meta = [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]  // {"a":"\xFF"}
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(request) }, .invalidMeta)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", "{", meta: "{")) }, .invalidJSON,
                       "the payload is checked first")
        XCTAssertTrue(try buffered(node).isEmpty)
        let accepted = try node.publishNow(self.request("ch", meta: " {\"k\": [1, 2]} "))
        XCTAssertEqual(accepted.message.meta.map(Array.init), Array(" {\"k\": [1, 2]} ".utf8))
    }

    // MARK: Sizes

    func testMessageSizeCountsURLEncodedPayloadChannelAndMeta() throws {
        var limits = Limits()
        limits.maxMessageBytes = 100
        let node = node(limits: limits)
        let meta = "{\"k\":1}"                                         // 17 once URL-encoded
        XCTAssertEqual(PublishRequest.urlEncodedLength(Array(meta.utf8)), 17)
        let atLimit = "\"" + String(repeating: "a", count: 75) + "\""  // 81 once URL-encoded
        let overLimit = "\"" + String(repeating: "a", count: 76) + "\""

        XCTAssertEqual(request("ch", atLimit).countedSize, 83)
        XCTAssertNoThrow(try node.publishNow(request("ch", atLimit, meta: meta)), "2 + 81 + 17 = 100 is at the limit")
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", overLimit, meta: meta)) },
                       .messageTooLarge(limit: 100))
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("chx", atLimit, meta: meta)) },
                       .messageTooLarge(limit: 100), "the channel name counts")
        XCTAssertNoThrow(try node.publishNow(request("ch", overLimit)), "without meta it fits")
        XCTAssertEqual(try buffered(node).count, 2)
    }

    func testMessageSizeCountsPercentEncodedBytes() throws {
        var limits = Limits()
        limits.maxMessageBytes = 30
        let node = node(limits: limits)
        // "é" is two UTF-8 bytes, six characters once percent-encoded: 3 + 4 * 6 + 3 + 2 = 32.
        XCTAssertEqual(request("ch", "\"éééé\"").countedSize, 32)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", "\"éééé\"")) }, .messageTooLarge(limit: 30))
        XCTAssertNoThrow(try node.publishNow(request("ch", "\"ééé\"")))
        XCTAssertNoThrow(try node.publishNow(request("ch", "\"" + String(repeating: "a", count: 22) + "\"")))
    }

    func testURLEncodedLengthLeavesOnlyUnreservedCharactersBare() {
        XCTAssertEqual(PublishRequest.urlEncodedLength(Array("AZaz09-_.~".utf8)), 10)
        for character in [" ", "\"", "{", "}", "/", "?", "%", "+", "&", "=", ":", ",", "[", "]", "!", "*", "'", "(", ")"] {
            XCTAssertEqual(PublishRequest.urlEncodedLength(Array(character.utf8)), 3, character)
        }
        XCTAssertEqual(PublishRequest.urlEncodedLength(Array("😀".utf8)), 12)
        XCTAssertEqual(PublishRequest.urlEncodedLength([UInt8]()), 0)
    }

    func testURLEncodedLengthCountsEveryByteTheSameWayInPlaceAndOtherwise() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8)
        for byte in UInt8.min...UInt8.max {
            let expected = unreserved.contains(byte) ? 1 : 3
            XCTAssertEqual(PublishRequest.urlEncodedLength([byte]), expected, "byte \(byte) in place")
            // A sequence that is not contiguous is counted byte by byte.
            XCTAssertEqual(PublishRequest.urlEncodedLength([byte].lazy.map { $0 }), expected, "byte \(byte) one by one")
        }
        let channel = "room-" + String(repeating: "é", count: 20) + " /"
        let expected = 5 + 40 * 3 + 3 + 3
        XCTAssertEqual(PublishRequest.urlEncodedLength(channel.utf8), expected, "a native string's bytes")
        XCTAssertEqual(PublishRequest.urlEncodedLength(Array(channel.utf8).lazy.map { $0 }), expected)
    }

    func testSignalSizeLimit() throws {
        let node = node()  // maxSignalBytes = 30
        let atLimit = "\"" + String(repeating: "s", count: 28) + "\""
        XCTAssertEqual(atLimit.utf8.count, 30)
        XCTAssertNoThrow(try node.publishNow(request("ch", atLimit, kind: .signal)))
        let over = "\"" + String(repeating: "s", count: 29) + "\""
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", over, kind: .signal)) },
                       .signalTooLarge(limit: 30))
        // Raw bytes count, not their URL encoding: 14 two-byte characters plus quotes are 30 bytes.
        XCTAssertNoThrow(try node.publishNow(request("ch", "\"" + String(repeating: "é", count: 14) + "\"", kind: .signal)))
        XCTAssertEqual(Fixture.pubNodeError {
            _ = try node.publishNow(self.request("ch", "\"" + String(repeating: "é", count: 15) + "\"", kind: .signal))
        }, .signalTooLarge(limit: 30))
        // The same text is a fine ordinary message.
        XCTAssertNoThrow(try node.publishNow(request("ch", over)))
    }

    func testSignalIsBufferedAsASignal() throws {
        let node = node()
        let result = try node.publishNow(request("ch", "\"sig\"", kind: .signal, store: true))
        XCTAssertEqual(result.message.kind, .signal)
        XCTAssertFalse(result.message.store, "signals are never stored")
        XCTAssertEqual(try buffered(node).payloads, ["\"sig\""])
        XCTAssertTrue(envelope(result.message).hasSuffix(",\"e\":1"))
    }
}

/// What the node's publish tests share: a manual clock, recorded hooks, requests and reads.
class NodeTestCase: XCTestCase {
    let wall = ManualClock()
    let hooks = RecordingHooks()

    func node(limits: Limits = Limits(), keysets: [Keyset] = [.demo], region: Int = 1,
                         authorizer: any Authorizer = OpenAuthorizer()) -> Node {
        Node(keysets: keysets, limits: limits, clock: TimetokenClock(wall: wall), region: region,
                       authorizer: authorizer, hooks: hooks.engine)
    }

    func request(_ channel: String = "ch", _ payload: String = "1", meta: String? = nil, uuid: String? = nil,
                         kind: MessageKind = .message, store: Bool? = nil, noReplication: Bool = false,
                         ttlHours: Int? = nil, customMessageType: String? = nil, authKey: String? = nil,
                         publishKey: String = "demo", subscribeKey: String = "demo") -> PublishRequest {
        PublishRequest(publishKey: publishKey, subscribeKey: subscribeKey, channel: channel, payload: Array(payload.utf8),
                       meta: meta.map { Array($0.utf8) }, uuid: uuid, kind: kind, store: store, noReplication: noReplication,
                       ttlHours: ttlHours, customMessageType: customMessageType, authKey: authKey)
    }

    func buffered(_ node: Node, _ channel: String = "ch", key: String = "demo") throws -> [Delivery] {
        try node.keyset(key).collect(Fixture.subscription([channel]), after: .zero).deliveries
    }

    func envelope(_ message: PublishedMessage) -> String {
        String(decoding: message.envelope, as: UTF8.self)
    }
}
