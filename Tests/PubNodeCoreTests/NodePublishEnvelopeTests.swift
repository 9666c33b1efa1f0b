import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

/// Fire, the other publish parameters, and the envelope a publish renders.
final class NodePublishEnvelopeTests: NodeTestCase {

    // MARK: Fire

    func testFireGoesToHooksOnlyAndIsNotBuffered() throws {
        let node = node()
        let hub = try node.keyset("demo")
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(["ch"])
        XCTAssertNil(hub.park(waiter, on: subscription, after: .zero))

        let result = try node.publishNow(request("ch", "{\"fire\":true}", store: false, noReplication: true))
        XCTAssertEqual(result.timetoken.rawValue, ManualClock.start / 100)
        XCTAssertEqual(waiter.wakeCount, 0, "a fire wakes nobody")
        XCTAssertFalse(result.message.store)
        let received = hooks.fired
        XCTAssertEqual(received.count, 1)
        XCTAssertEqual(received.first?.timetoken, result.timetoken)
        XCTAssertEqual(received.first?.subscribeKey, "demo")
        XCTAssertEqual(received.first?.message, Array("{\"fire\":true}".utf8))
        XCTAssertTrue(hub.collect(subscription, after: .zero).deliveries.isEmpty, "a fire is not buffered")

        let later = try node.publishNow(request("ch"))
        XCTAssertGreaterThan(later.timetoken, result.timetoken, "fire timetokens come from the node clock")
        XCTAssertEqual(waiter.wakeCount, 1, "the fire did not consume the parked waiter")
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
