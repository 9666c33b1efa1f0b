import Foundation
import PubNodeAccessWire
@testable import PubNodeClient
import PubNodeTestSupport
import XCTest

/// Parsing tokens, replacing the token while subscribed and the nearing-expiry notice.
final class AccessTokenTests: XCTestCase {
    /// The JS and Swift SDKs' reference token (wire notes §2.3).
    static let referenceToken = "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNyoENzcGOgRHV1aWShZnV1aWQtMRhoQ3BhdKVEY2hhbqFtXmNoYW5uZWwtXFMqJBjvQ2dycKF0XjpjaGFubmVsX2dyb3VwLVxTKiQFQ3VzcqBDc3BjoER1dWlkoWpedXVpZC1cUyokGGhEbWV0YaBEdXVpZHR0ZXN0LWF1dGhvcml6ZWQtdXVpZENzaWdYIPpU-vCe9rkpYs87YUrFNWkyNq8CVvmKwEjVinnDrJJc"

    /// A signed token issued at `issued` for `ttl` minutes.
    static func token(issued: UInt64, ttl: Int, channel: String = "a", meta: String = "{}") throws -> String {
        AccessToken(issued: issued, ttlMinutes: ttl, resources: .init(channels: [channel: [.read, .write]]),
                    meta: try CBORValue(json: Array(meta.utf8)), authorizedUUID: "me")
            .signed(secret: "sec").encoded()
    }

    func testParsesTheReferenceToken() throws {
        let token = try PubNodeClient.parse(token: Self.referenceToken)
        XCTAssertEqual(token.version, 2)
        XCTAssertEqual(token.timestamp, 1_627_968_380)
        XCTAssertEqual(token.ttl, 60)
        XCTAssertEqual(token.expiresAt, 1_627_968_380 + 3600)
        XCTAssertEqual(token.authorizedUUID, "test-authorized-uuid")
        XCTAssertEqual(token.resources.channels, ["channel-1": TokenPermissions(rawValue: 239)])
        XCTAssertEqual(token.resources.channels["channel-1"]?.letters, "rwmdguj")
        XCTAssertEqual(token.resources.groups, ["channel_group-1": [.read, .manage]])
        XCTAssertEqual(token.resources.uuids, ["uuid-1": [.delete, .get, .update]])
        XCTAssertEqual(token.patterns.channels, [#"^channel-\S*$"#: TokenPermissions(rawValue: 239)])
        XCTAssertEqual(token.patterns.groups, [#"^:channel_group-\S*$"#: [.read, .manage]])
        XCTAssertEqual(token.meta, .object([:]))
    }

    func testParsesMetaAndRefusesGarbage() throws {
        let text = try Self.token(issued: 1_700_000_000, ttl: 15, meta: #"{"role":"admin","n":[1,2.5,true,null]}"#)
        let token = try PubNodeClient.parse(token: text)
        XCTAssertEqual(token.meta, ["role": "admin", "n": [1, 2.5, true, nil]])
        XCTAssertEqual(token.ttl, 15)
        XCTAssertEqual(token.json["resources"]?["channels"]?["a"]?["letters"], "rw")
        XCTAssertThrowsError(try PubNodeClient.parse(token: "not a token"))
        XCTAssertEqual(TokenPermissions(letters: "rwmdguj")?.rawValue, 239)
        XCTAssertNil(TokenPermissions(letters: "rx"))
    }

    static let handshake = #"{"t":{"t":"100","r":1},"m":[]}"#

    /// A transport leaving subscribe requests to the test and answering leaves at once.
    static func subscribeTransport() -> AnsweringTransport {
        AnsweringTransport { request in
            request.url.path.hasSuffix("/leave")
                ? TransportResponse(status: 200, body: Data(#"{"status":200,"message":"OK","service":"Presence"}"#.utf8))
                : nil
        }
    }

    func subscribeClient(_ transport: AnsweringTransport, clock: ManualClock, token: String?,
                         retry: RetryPolicy = .default) -> PubNodeClient {
        let configuration = PubNodeConfiguration(subscribeKey: "sub", userId: "me", retryPolicy: retry, authToken: token)
        return PubNodeClient(configuration: configuration, transport: transport, sleeper: clock, random: { 0 },
                             wallClock: { clock.now() })
    }

    /// Unsubscribes, moving the clock past the leave's settle wait (a long-poll was just sent).
    func unsubscribe(_ client: PubNodeClient, clock: ManualClock) async {
        async let done: Void = client.unsubscribeAll()
        _ = await clock.advanceToSleeper(dueIn: .milliseconds(250), timeout: .seconds(2))
        await done
    }

    func auth(_ request: TransportRequest) -> String? {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "auth" }?.value
    }

    func tt(_ request: TransportRequest) -> String? {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "tt" }?.value
    }

    func testSetTokenGoesOutWithTheNextLongPollWithoutLosingMessages() async throws {
        let transport = Self.subscribeTransport()
        let clock = ManualClock()
        let client = subscribeClient(transport, clock: clock, token: "old")
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["a"])
        await waitUntil(5, "handshake answered") { transport.answer(body: Self.handshake) }
        await waitUntil(5, "long-poll sent") { transport.requests.count == 2 }
        client.set(token: "new")
        XCTAssertEqual(client.authToken, "new")
        let message = #"{"t":{"t":"200","r":1},"m":[{"c":"a","d":"hi","p":{"t":"150","r":1},"i":"x"}]}"#
        await waitUntil(5, "long-poll answered") { transport.answer(body: message) }
        await waitUntil(5, "next long-poll sent") { transport.requests.count == 3 }
        let requests = transport.requests
        XCTAssertEqual(requests.map(auth), ["old", "old", "new"])
        XCTAssertEqual(requests.map(tt), ["0", "100", "200"], "the long-poll under way was not restarted")
        XCTAssertEqual(recorder.messages.map(\.payload), ["hi"])
        await unsubscribe(client, clock: clock)
    }

    func testNearingExpiryIsReportedTheConfiguredTimeBeforeExpiry() async throws {
        let clock = ManualClock()  // 1_700_000_000.123456789 s
        let token = try Self.token(issued: 1_700_000_000, ttl: 10)
        let client = subscribeClient(AnsweringTransport(), clock: clock, token: token)
        let recorder = EventRecorder()
        client.addListener(recorder)
        func notices() -> [TokenExpiryNotice] {
            recorder.events.compactMap { if case .tokenNearingExpiry(let notice) = $0 { notice } else { nil } }
        }
        // Expires at +600 s; the default warning is 60 s, so the notice is due 540 s after issue.
        await waitUntil(5, "expiry timer set") { clock.sleeperCount == 1 }
        clock.advance(seconds: 539)
        XCTAssertEqual(clock.sleeperCount, 1)
        XCTAssertTrue(notices().isEmpty)
        clock.advance(seconds: 1)
        await waitUntil(5, "notice") { notices().count == 1 }
        XCTAssertEqual(notices().first?.token, token)
        XCTAssertEqual(notices().first?.expiresAt, 1_700_000_600)
        XCTAssertEqual(notices().first?.secondsLeft ?? 0, 59.876, accuracy: 0.001)

        // A new token replaces the timer: due 60 s before its own expiry, the old one never fires again.
        let renewed = try Self.token(issued: 1_700_000_540, ttl: 20)
        client.set(token: renewed)
        await waitUntil(5, "new timer set") { clock.sleeperCount == 1 }
        let due = try XCTUnwrap(clock.deadlines.first)
        XCTAssertEqual(Double(due) / 1e9, Double(1_700_000_540 + 1140), accuracy: 0.001)
        client.set(token: nil)
        await waitUntil(5, "timer cancelled") { clock.sleeperCount == 0 }
        clock.advance(seconds: 3600)
        XCTAssertEqual(notices().count, 1)
    }

    func testForbiddenSubscribeStopsWithTheCauseAndDoesNotRetry() async throws {
        let transport = Self.subscribeTransport()
        let clock = ManualClock()
        let client = subscribeClient(transport, clock: clock, token: "t")
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["a", "b"], and: ["g"])
        await waitUntil(5, "handshake refused") {
            transport.answer(status: 403, body: #"{"message":"Forbidden","payload":{"channels":["a"],"channel-groups":[":g"]},"error":true,"service":"Access Manager","status":403}"#)
        }
        await waitUntil(5, "stopped") { await client.connectionStatus == .disconnectedUnexpectedly }
        let denial = AccessDenial(message: "Forbidden", channels: ["a"], channelGroups: ["g"])
        let stops = recorder.events.compactMap { event -> StatusChange? in
            if case .status(let change) = event, change.current == .disconnectedUnexpectedly { change } else { nil }
        }
        XCTAssertEqual(stops.map(\.error), [.accessDenied(denial)])
        XCTAssertTrue(recorder.events.contains(.error(.accessDenied(denial))))
        XCTAssertEqual(clock.sleeperCount, 0, "no retry scheduled")
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(PubNodeClientError.accessDenied(denial).status, 403)
    }

    func testTooManyRequestsIsRetriedAfterRetryAfter() async throws {
        let transport = Self.subscribeTransport()
        let clock = ManualClock()
        let client = subscribeClient(transport, clock: clock, token: nil)
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["a"])
        await waitUntil(5, "handshake limited") {
            transport.answer(status: 429, body: #"{"status":429,"error":true,"message":"Too many requests.","service":"Rate Limiter"}"#,
                             headers: ["Retry-After": "7"])
        }
        await waitUntil(5, "reconnecting") { await client.connectionStatus == .reconnecting }
        XCTAssertTrue(recorder.events.contains(.status(StatusChange(
            previous: .connecting, current: .reconnecting,
            error: .rateLimited(retryAfter: 7, message: "Too many requests.")))))
        // The default policy would wait 1 s; the node asked for 7.
        await waitUntil(5, "retry scheduled") { clock.sleeperCount == 1 }
        XCTAssertTrue(clock.hasSleeper(dueIn: .seconds(7)))
        clock.advance(seconds: 6)
        XCTAssertEqual(transport.requests.count, 1)
        clock.advance(seconds: 1)
        await waitUntil(5, "retried") { transport.answer(body: Self.handshake) }
        await waitUntil(5, "connected") { await client.connectionStatus == .connected }
        XCTAssertEqual(transport.requests.map(tt).prefix(2), ["0", "0"])
        await unsubscribe(client, clock: clock)
    }
}
