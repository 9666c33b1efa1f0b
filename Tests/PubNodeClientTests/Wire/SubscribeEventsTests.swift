import Foundation
import PubNodeAccessWire
@testable import PubNodeClient
import PubNodeTestSupport
import XCTest

/// What a subscription makes of `e: 2` and `e: 3` envelopes, of encrypted payloads, and the
/// filter expression on every poll.
final class SubscribeEventsTests: XCTestCase {
    static let handshake = #"{"t":{"t":"100","r":1},"m":[]}"#

    private func transport() -> AnsweringTransport {
        AnsweringTransport { request in
            request.url.path.hasSuffix("/leave")
                ? TransportResponse(status: 200, body: Data(#"{"status":200,"message":"OK","service":"Presence"}"#.utf8))
                : nil
        }
    }

    /// Subscribes to `ch`, answers the handshake, answers the long-poll with `messages`, waits for
    /// the next poll, runs `check`, and unsubscribes.
    private func deliver(_ messages: String, cryptoModule: CryptoModule? = nil, filter: String? = nil,
                         check: (EventRecorder, AnsweringTransport) throws -> Void) async throws {
        let transport = transport()
        let clock = ManualClock()
        let client = WireFixtures.client(transport, cryptoModule: cryptoModule, filterExpression: filter, sleeper: clock)
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["ch"])
        await waitUntil(5, "handshake answered") { transport.answer(body: Self.handshake) }
        await waitUntil(5, "long-poll answered") { transport.answer(body: #"{"t":{"t":"200","r":1},"m":[\#(messages)]}"#) }
        await waitUntil(5, "next long-poll sent") { transport.requests.count == 3 }
        try check(recorder, transport)
        async let done: Void = client.unsubscribeAll()
        _ = await clock.advanceToSleeper(dueIn: .milliseconds(250), timeout: .seconds(2))
        await done
    }

    func testMessageActionEnvelopes() async throws {
        let added = #"{"f":0,"e":3,"i":"actor","p":{"t":"17000000000000010","r":56},"k":"sub","c":"ch","b":"ch","d":{"source":"actions","version":"1.0","event":"added","data":{"messageTimetoken":"17000000000000001","type":"reaction","value":"smiley_face","actionTimetoken":"17000000000000009"}}}"#
        let removed = #"{"f":0,"e":3,"i":"actor","p":{"t":"17000000000000011","r":56},"k":"sub","c":"ch","b":"ch","d":{"source":"actions","version":"1.0","event":"removed","data":{"messageTimetoken":"17000000000000001","type":"reaction","value":"smiley_face","uuid":"owner","actionTimetoken":"17000000000000009"}}}"#
        let unknown = #"{"e":3,"i":"a","p":{"t":"17000000000000012"},"c":"ch","d":{"source":"actions","event":"edited","data":{}}}"#
        try await deliver([added, removed, unknown].joined(separator: ",")) { recorder, _ in
            let action = MessageAction(channel: "ch", type: "reaction", value: "smiley_face", uuid: "actor",
                                       actionTimetoken: 17_000_000_000_000_009, messageTimetoken: 17_000_000_000_000_001)
            var removedAction = action
            removedAction.uuid = "owner"
            let events = recorder.events.filter { if case .messageActionAdded = $0 { true } else if case .messageActionRemoved = $0 { true } else { false } }
            XCTAssertEqual(events, [.messageActionAdded(action), .messageActionRemoved(removedAction)])
            XCTAssertTrue(recorder.messages.isEmpty, "actions are not messages")
        }
    }

    func testAppContextEnvelopes() async throws {
        func envelope(_ type: String, _ event: String, _ data: String) -> String {
            #"{"e":2,"i":"writer","p":{"t":"1700000000000\#(type.count)\#(event.count)","r":1},"k":"sub","c":"ch","d":{"source":"objects","version":"2.0","event":"\#(event)","type":"\#(type)","data":\#(data)}}"#
        }
        let envelopes = [
            envelope("uuid", "set", #"{"id":"u1","name":"Ann","custom":{"a":1},"updated":"2024-01-01T00:00:00Z","eTag":"e1"}"#),
            envelope("uuid", "delete", #"{"id":"u1"}"#),
            envelope("channel", "set", #"{"id":"ch","name":"Chat","description":"d","updated":"x","eTag":"e2"}"#),
            envelope("channel", "delete", #"{"id":"ch"}"#),
            envelope("membership", "set", #"{"channel":{"id":"ch"},"uuid":{"id":"u1"},"custom":{"role":"mod"},"updated":"y","eTag":"e3"}"#),
            envelope("membership", "delete", #"{"channel":{"id":"ch"},"uuid":{"id":"u1"}}"#),
            #"{"e":2,"p":{"t":"17000000000000099"},"c":"ch","d":{"source":"objects","event":"set","type":"space","data":{"id":"x"}}}"#,
        ]
        try await deliver(envelopes.joined(separator: ",")) { recorder, _ in
            let events = recorder.events.filter {
                switch $0 {
                case .status, .subscriptionChanged: return false
                default: return true
                }
            }
            XCTAssertEqual(events, [
                .uuidMetadataSet(UUIDMetadata(id: "u1", name: "Ann", custom: ["a": 1], updated: "2024-01-01T00:00:00Z", eTag: "e1")),
                .uuidMetadataRemoved(metadataId: "u1"),
                .channelMetadataSet(ChannelMetadata(id: "ch", name: "Chat", channelDescription: "d", updated: "x", eTag: "e2")),
                .channelMetadataRemoved(metadataId: "ch"),
                .membershipMetadataSet(Membership(uuid: "u1", channel: "ch", custom: ["role": "mod"], updated: "y", eTag: "e3")),
                .membershipMetadataRemoved(Membership(uuid: "u1", channel: "ch")),
            ])
        }
    }

    func testEncryptedMessagesAreDecryptedAndFailuresDeliveredAsTheyCame() async throws {
        let module = CryptoModule.legacyCryptoModule(with: "testKey", withRandomIV: false)
        let good = #"{"e":0,"i":"p","p":{"t":"150","r":1},"c":"ch","d":"QfD1NCBJCmt1aPPGU2cshw=="}"#
        let plain = #"{"i":"p","p":{"t":"151","r":1},"c":"ch","d":{"not":"encrypted"}}"#
        let signal = #"{"e":1,"i":"p","p":{"t":"152","r":1},"c":"ch","d":"typing"}"#
        try await deliver([good, plain, signal].joined(separator: ","), cryptoModule: module) { recorder, _ in
            XCTAssertEqual(recorder.messages.map(\.payload), ["hey-0", ["not": "encrypted"]])
            XCTAssertNil(recorder.messages[0].decryptionError)
            guard case .crypto? = recorder.messages[1].decryptionError else { return XCTFail("no decryption error") }
            let errors = recorder.events.compactMap { if case .error(let error) = $0 { error } else { nil } }
            XCTAssertEqual(errors.count, 1)
            XCTAssertEqual(recorder.signals.map(\.payload), ["typing"], "signals are never decrypted")
        }
    }

    func testFilterExpressionGoesOutOnEveryPollPercentEncoded() async throws {
        let filter = "uuid != 'me' && meta.score > 5"
        try await deliver("", filter: filter) { _, transport in
            let polls = transport.requests.filter { $0.url.path.hasPrefix("/v2/subscribe/") }
            XCTAssertEqual(polls.count, 3)
            for poll in polls {
                XCTAssertEqual(WireFixtures.query(poll)["filter-expr"], filter)
                XCTAssertTrue(poll.url.absoluteString.contains(
                    "filter-expr=uuid%20%21%3D%20%27me%27%20%26%26%20meta.score%20%3E%205"), poll.url.absoluteString)
            }
        }
        try await deliver("") { _, transport in
            XCTAssertFalse(transport.requests.contains { WireFixtures.query($0)["filter-expr"] != nil })
        }
    }

    func testSignedPollsWithAFilterVerify() throws {
        let configuration = PubNodeConfiguration(publishKey: "pub", subscribeKey: "sub", userId: "me", secretKey: "secret",
                                                 filterExpression: "a == 'b c'")
        let builder = RequestBuilder(configuration: configuration, wallClock: { 1_700_000_000 })
        let request = try builder.request(["v2", "subscribe", "sub", "ch", "0"],
                                          query: [("tt", "0"), ("filter-expr", "a == 'b c'")])
        let components = try XCTUnwrap(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        XCTAssertTrue(components.percentEncodedQuery?.contains("filter-expr=a%20%3D%3D%20%27b%20c%27") == true)
        let check = RequestSignature.verify(
            method: "GET", path: components.percentEncodedPath, rawQuery: components.percentEncodedQuery ?? "", body: nil,
            publishKey: "pub", subscribeKey: "sub", secret: "secret", now: 1_700_000_000)
        XCTAssertEqual(check, .valid)
    }
}
