@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A prepared publish is refused, and answered, exactly as the same request is by `Node.begin(_:)`.
final class PreparedPublishTests: XCTestCase {
    private func request(channel: String = "room", payload: String = "1", meta: String? = nil, ttl: Int? = nil,
                         type: String? = nil, kind: MessageKind = .message) -> PublishRequest {
        PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: channel, payload: Array(payload.utf8),
                       meta: meta.map { Array($0.utf8) }, kind: kind, ttlHours: ttl, customMessageType: type)
    }

    private func outcome(_ body: () throws(PubNodeError) -> Node.PublishStep) -> PubNodeError? {
        do throws(PubNodeError) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    func testNamesThatDoNotValidateAreRefusedAsBeginRefusesThem() {
        let node = Node()
        for bad in [request(channel: "room.*"), request(channel: "a,b"), request(meta: "{"), request(ttl: -1),
                    request(type: "x")] {
            let expected = outcome { () throws(PubNodeError) in try node.begin(bad) }
            XCTAssertNotNil(expected)
            XCTAssertThrowsError(try node.prepare(bad)) { XCTAssertEqual($0 as? PubNodeError, expected) }
        }
        var signed = request()
        signed.signature = SignedRequest(method: "GET", path: "/publish/demo/demo/0/room/0/1", rawQuery: "")
        XCTAssertThrowsError(try node.prepare(signed), "a signature covers the message: never prepared")
    }

    func testEachMessageIsValidatedAndAnsweredAsBeginAnswersIt() throws {
        var limits = Limits()
        limits.maxMessageBytes = 64
        let node = Node(limits: limits)
        let message = try node.prepare(request())
        let signal = try node.prepare(request(kind: .signal))
        let long = "\"" + String(repeating: "x", count: 80) + "\""
        for (prepared, kind) in [(message, MessageKind.message), (signal, .signal)] {
            for payload in ["{", "", long, "\"é\"", #"{"a":[1,2]}"#] {
                let expected = outcome { () throws(PubNodeError) in try node.begin(request(payload: payload, kind: kind)) }
                let got = outcome { () throws(PubNodeError) in try node.begin(prepared, payload: Array(payload.utf8)) }
                XCTAssertEqual(got, expected, "\(kind) \(payload)")
            }
        }
        guard case .done(let result) = try node.begin(message, payload: Array(#"{"a":[1,2]}"#.utf8)) else {
            return XCTFail("accepted at once")
        }
        XCTAssertEqual(Array(result.message.payload), Array(#"{"a":[1,2]}"#.utf8))
        XCTAssertEqual(result.message.channel, "room")
    }

    func testABeforeHookSeesAndCanReplaceEachNewMessage() async throws {
        let hook = HookBinding(name: "upper", trigger: .beforePublish, subscribeKey: "demo", channels: ["room"],
                               handler: .before(ClosureBefore { event in
                                   event.message == Array("2".utf8) ? .modify(message: Array("20".utf8), meta: nil) : .pass
                               }))
        let node = Node(hooks: try HookEngine(bindings: [hook]))
        let prepared = try node.prepare(request())
        var delivered: [String] = []
        for payload in ["1", "2"] {
            guard case .awaitingHooks(let pending) = try node.begin(prepared, payload: Array(payload.utf8)) else {
                return XCTFail("the before hook holds every publish, prepared or not")
            }
            XCTAssertEqual(pending.request.payload, Array(payload.utf8), "the hook is handed this publish's message")
            let result = try await node.complete(pending)
            delivered.append(String(decoding: result.message.payload, as: UTF8.self))
        }
        XCTAssertEqual(delivered, ["1", "20"])
    }

    /// A prepared publish's message is the one the same request publishes: every field its draft
    /// carries (meta, publisher, kind, custom type, storage and its TTL) with each new payload.
    func testEachMessageCarriesTheRequestsFields() throws {
        let node = Node()
        let full = PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: "room", payload: Array("0".utf8),
                                  meta: Array(#"{"m":1}"#.utf8), uuid: "alice", store: true, ttlHours: 5,
                                  customMessageType: "chat-1")
        var unstored = full
        unstored.store = false
        var signal = full
        signal.kind = .signal
        signal.meta = nil
        for request in [full, unstored, signal] {
            let prepared = try node.prepare(request)
            for text in ["1", #"{"n":2}"#] {
                guard case .done(let repeated) = try node.begin(prepared, payload: Array(text.utf8)) else {
                    return XCTFail("accepted at once")
                }
                var whole = request
                whole.payload = Array(text.utf8)
                guard case .done(let direct) = try node.begin(whole) else { return XCTFail("accepted at once") }
                let (a, b) = (repeated.message, direct.message)
                XCTAssertEqual(Array(a.payload), Array(text.utf8))
                XCTAssertEqual(a.channel, b.channel)
                XCTAssertEqual(a.meta.map(Array.init), b.meta.map(Array.init))
                XCTAssertEqual(a.publisher, b.publisher)
                XCTAssertEqual(a.kind, b.kind)
                XCTAssertEqual(a.customMessageType, b.customMessageType)
                XCTAssertEqual(a.store, b.store)
                XCTAssertEqual(a.ttlHours, b.ttlHours)
                XCTAssertEqual(a.envelope.count, b.envelope.count, "the same envelope but for its timetoken")
            }
        }
    }
}
