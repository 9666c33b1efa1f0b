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

/// Records every access request and refuses the listed operations.
final class RecordingAuthorizer: Authorizer {
    private let log = Mutex<[AccessRequest]>([])
    private let refused: Set<AccessRequest.Operation>

    init(refusing refused: Set<AccessRequest.Operation> = []) {
        self.refused = refused
    }

    func authorize(_ request: AccessRequest) throws(PubNodeError) {
        log.withLock { $0.append(request) }
        if refused.contains(request.operation) { throw .forbidden("refused \(request.operation.rawValue)") }
    }

    var requests: [AccessRequest] { log.withLock { $0 } }
}

final class NodeTests: XCTestCase {
    private let wall = ManualClock()
    private let hooks = RecordingHooks()

    private func node(limits: Limits = Limits(), keysets: [Keyset] = [.demo], region: Int = 1,
                         authorizer: any Authorizer = OpenAuthorizer()) -> Node {
        Node(keysets: keysets, limits: limits, clock: TimetokenClock(wall: wall), region: region,
                       authorizer: authorizer, hooks: hooks.engine)
    }

    private func request(_ channel: String = "ch", _ payload: String = "1", meta: String? = nil, uuid: String? = nil,
                         kind: MessageKind = .message, store: Bool? = nil, noReplication: Bool = false,
                         ttlHours: Int? = nil, customMessageType: String? = nil, authKey: String? = nil,
                         publishKey: String = "demo", subscribeKey: String = "demo") -> PublishRequest {
        PublishRequest(publishKey: publishKey, subscribeKey: subscribeKey, channel: channel, payload: Array(payload.utf8),
                       meta: meta.map { Array($0.utf8) }, uuid: uuid, kind: kind, store: store, noReplication: noReplication,
                       ttlHours: ttlHours, customMessageType: customMessageType, authKey: authKey)
    }

    private func buffered(_ node: Node, _ channel: String = "ch", key: String = "demo") throws -> [Delivery] {
        try node.keyset(key).collect(Fixture.subscription([channel]), after: .zero).deliveries
    }

    private func envelope(_ message: PublishedMessage) -> String {
        String(decoding: message.envelope, as: UTF8.self)
    }

    // MARK: Accepted publishes

    func testPublishBuffersTheMessageAndReturnsItsTimetokenAndWaiters() throws {
        let node = node()
        let waiter = TestWaiter()
        XCTAssertNil(try node.keyset("demo").park(waiter, on: Fixture.subscription(["ch"]), after: .zero))
        let result = try node.publishNow(request("ch", "{\"hello\":\"world\"}"))
        XCTAssertEqual(result.timetoken.rawValue, ManualClock.start / 100)
        XCTAssertEqual(result.message.timetoken, result.timetoken)
        XCTAssertTrue(result.waiters.includes(waiter))
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

    // MARK: Fire

    func testFireGoesToHooksOnlyAndIsNotBuffered() throws {
        let node = node()
        let hub = try node.keyset("demo")
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(["ch"])
        XCTAssertNil(hub.park(waiter, on: subscription, after: .zero))

        let result = try node.publishNow(request("ch", "{\"fire\":true}", store: false, noReplication: true))
        XCTAssertEqual(result.timetoken.rawValue, ManualClock.start / 100)
        XCTAssertTrue(result.waiters.isEmpty)
        XCTAssertFalse(result.message.store)
        let received = hooks.fired
        XCTAssertEqual(received.count, 1)
        XCTAssertEqual(received.first?.timetoken, result.timetoken)
        XCTAssertEqual(received.first?.subscribeKey, "demo")
        XCTAssertEqual(received.first?.message, Array("{\"fire\":true}".utf8))
        XCTAssertTrue(hub.collect(subscription, after: .zero).deliveries.isEmpty, "a fire is not buffered")

        let later = try node.publishNow(request("ch"))
        XCTAssertGreaterThan(later.timetoken, result.timetoken, "fire timetokens come from the node clock")
        XCTAssertTrue(later.waiters.includes(waiter), "the fire did not consume the parked waiter")
    }

    func testOnlyStoreFalseWithNoReplicationIsAFire() throws {
        let node = node()
        let storeOff = try node.publishNow(request("ch", "1", store: false))
        let noRep = try node.publishNow(request("ch", "2", noReplication: true))
        let signal = try node.publishNow(request("ch", "3", kind: .signal, store: false, noReplication: true))
        XCTAssertTrue(hooks.fired.isEmpty)
        XCTAssertEqual(try buffered(node).payloads, ["1", "2", "3"])
        XCTAssertFalse(storeOff.message.store)
        XCTAssertTrue(noRep.message.store)
        XCTAssertEqual(signal.message.kind, .signal)
    }

    func testFireIsValidatedLikeAPublish() throws {
        let node = node()
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", "{", store: false, noReplication: true)) },
                       .invalidJSON)
        XCTAssertEqual(Fixture.pubNodeError { _ = try node.publishNow(self.request("a.*", store: false, noReplication: true)) },
                       .publishToWildcard("a.*"))
        XCTAssertTrue(hooks.fired.isEmpty)
    }

    func testFireEnvelopeCarriesTheConfiguredRegion() throws {
        let node = node(region: 7)
        let published = try node.publishNow(request("ch"))
        XCTAssertTrue(envelope(published.message).contains("\"r\":7}"), envelope(published.message))
        let fired = try node.publishNow(request("ch", store: false, noReplication: true))
        XCTAssertTrue(envelope(fired.message).contains("\"r\":7}"), "fire rendered \(envelope(fired.message))")
    }

    // MARK: Other parameters

    func testCustomMessageTypeRules() throws {
        let node = node()
        for type in ["abc", "ABC", "a-b", "a_b", "Z9-_", "1ab", String(repeating: "x", count: 50)] {
            let result = try node.publishNow(request("ch", customMessageType: type))
            XCTAssertEqual(result.message.customMessageType, type)
        }
        for type in ["", "ab", String(repeating: "x", count: 51), "-abc", "_abc", "a b", "abc!", "ébc", "abc.", "ab\n"] {
            let error = Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", customMessageType: type)) }
            guard case .invalidParameter = error else {
                XCTFail("custom_message_type \(type.debugDescription) gave \(String(describing: error))")
                continue
            }
        }
    }

    func testTTLMustNotBeNegative() throws {
        let node = node()
        let error = Fixture.pubNodeError { _ = try node.publishNow(self.request("ch", ttlHours: -1)) }
        guard case .invalidParameter = error else { return XCTFail("ttl -1 gave \(String(describing: error))") }
        XCTAssertEqual(try node.publishNow(request("ch", ttlHours: 0)).message.ttlHours, 0)
        XCTAssertEqual(try node.publishNow(request("ch", ttlHours: 24)).message.ttlHours, 24)
        XCTAssertNil(try node.publishNow(request("ch")).message.ttlHours)
    }

    // MARK: Envelope

    func testEnvelopeHoldsThePayloadByteExactAndTheOptionalFields() throws {
        let node = node()
        let payload = "{\"big\":123456789012345678901234567890,\"f\":1.50E+3,\"s\":\"\\u00e9\",  \"z\":[ ]}"
        let result = try node.publishNow(request("ch", payload, meta: "{\"m\":1}", uuid: "user-1", customMessageType: "chat_msg"))
        let tt = result.timetoken.description
        XCTAssertEqual(envelope(result.message),
                       "{\"a\":\"0\",\"f\":0,\"i\":\"user-1\",\"p\":{\"t\":\"\(tt)\",\"r\":1},\"k\":\"demo\",\"c\":\"ch\","
                       + "\"d\":\(payload),\"u\":{\"m\":1},\"cmt\":\"chat_msg\"")
        XCTAssertEqual(Array(result.message.payload), Array(payload.utf8))
        XCTAssertFalse(envelope(result.message).contains("\"e\":"), "ordinary messages carry no e")
    }

    func testSignalEnvelopeHasE1AndMinimalFieldsWhenOmitted() throws {
        let node = node()
        let result = try node.publishNow(request("ch", "7", kind: .signal))
        let tt = result.timetoken.description
        XCTAssertEqual(envelope(result.message),
                       "{\"a\":\"0\",\"f\":0,\"p\":{\"t\":\"\(tt)\",\"r\":1},\"k\":\"demo\",\"c\":\"ch\",\"d\":7,\"e\":1")
    }
}
