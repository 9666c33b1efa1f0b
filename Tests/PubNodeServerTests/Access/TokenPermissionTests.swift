import Foundation
import NIOCore
import NIOHTTP1
import PubNodeAccessWire
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// What an Access Manager token lets its holder do, endpoint by endpoint (PubNub's mapping).
final class TokenPermissionTests: XCTestCase {
    typealias Grant = (channels: [String: Int], groups: [String: Int], uuids: [String: Int])
    static let (read, write, manage, delete, get, update, join) = (1, 2, 4, 8, 32, 64, 128)
    static let all = 0xEF

    /// Each endpoint, the grant it needs, and the permission whose absence must refuse it.
    static let cases: [(String, HTTPMethod, Grant, String)] = [
        ("/publish/pub-c-test/sub-c-test/0/c/0/1", .GET, (["c": write], [:], [:]), "c"),
        ("/signal/pub-c-test/sub-c-test/0/c/0/1", .GET, (["c": write], [:], [:]), "c"),
        ("/v2/subscribe/sub-c-test/c,c-pnpres/0?tt=0", .GET, (["c": read, "c-pnpres": read], [:], [:]), "c-pnpres"),
        ("/v2/subscribe/sub-c-test/,/0?tt=0&channel-group=g", .GET, ([:], ["g": read], [:]), "g"),
        ("/v2/presence/sub-key/sub-c-test/channel/c/heartbeat", .GET, (["c": read], [:], [:]), "c"),
        ("/v2/presence/sub-key/sub-c-test/channel/c", .GET, (["c": read], [:], [:]), "c"),
        ("/v2/presence/sub-key/sub-c-test/channel/c/uuid/u", .GET, (["c": read], [:], [:]), "c"),
        ("/v2/presence/sub-key/sub-c-test/channel/c/uuid/u/data?state=%7B%7D", .GET, (["c": read], [:], [:]), "c"),
        ("/v1/channel-registration/sub-key/sub-c-test/channel-group/g?add=c", .GET, ([:], ["g": manage], [:]), "g"),
        ("/v1/channel-registration/sub-key/sub-c-test/channel-group/g?remove=c", .GET, ([:], ["g": manage], [:]), "g"),
        ("/v1/channel-registration/sub-key/sub-c-test/channel-group/g/remove", .GET, ([:], ["g": manage], [:]), "g"),
        ("/v1/channel-registration/sub-key/sub-c-test/channel-group/g", .GET, ([:], ["g": read], [:]), "g"),
        ("/v2/history/sub-key/sub-c-test/channel/c", .GET, (["c": read], [:], [:]), "c"),
        ("/v3/history/sub-key/sub-c-test/channel/c,d", .GET, (["c": read, "d": read], [:], [:]), "d"),
        ("/v3/history/sub-key/sub-c-test/message-counts/c?timetoken=1", .GET, (["c": read], [:], [:]), "c"),
        ("/v3/history/sub-key/sub-c-test/channel/c", .DELETE, (["c": delete], [:], [:]), "c"),
        ("/v1/message-actions/sub-c-test/channel/c", .GET, (["c": read], [:], [:]), "c"),
        ("/v1/message-actions/sub-c-test/channel/c/message/1/action/2", .DELETE, (["c": delete], [:], [:]), "c"),
    ]

    func testEachEndpointNeedsExactlyItsPermission() async throws {
        let fixture = try AccessFixture()
        for (uri, method, grant, missing) in Self.cases {
            let separator = uri.contains("?") ? "&" : "?"
            let exact = try await fixture.grant(AccessFixture.grantBody(channels: grant.channels, groups: grant.groups,
                                                                         uuids: grant.uuids))
            let allowed = try await fixture.call(uri + separator + "uuid=u&auth=\(AccessFixture.auth(exact))", method)
            XCTAssertNotEqual(allowed.status, 403, "\(uri) with its permission: \(allowed.body)")
            // Every other bit on the resource that is missing it.
            func without(_ map: [String: Int]) -> [String: Int] {
                map.reduce(into: [:]) { $0[$1.key] = $1.key == missing ? (Self.all & ~$1.value) : $1.value }
            }
            let lacking = try await fixture.grant(AccessFixture.grantBody(channels: without(grant.channels),
                                                                           groups: without(grant.groups), uuids: grant.uuids))
            let refused = try await fixture.call(uri + separator + "uuid=u&auth=\(AccessFixture.auth(lacking))", method)
            XCTAssertEqual(refused.status, 403, "\(uri) without it: \(refused.body)")
            let payload = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(refused.body.utf8)) as? [String: Any])
            XCTAssertEqual(payload["message"] as? String, "Forbidden")
            let denied = payload["payload"] as? [String: [String]]
            let named = (denied?["channels"] ?? []) + (denied?["channel-groups"] ?? []).map { String($0.dropFirst()) }
            XCTAssertEqual(named, [missing], "\(uri): \(refused.body)")
            let none = try await fixture.call(uri + separator + "uuid=u", method)
            XCTAssertEqual(none.status, 403, "\(uri) without a token")
        }
    }

    func testARefusalChangesNothing() async throws {
        let fixture = try AccessFixture()
        let reader = try await fixture.grant(AccessFixture.grantBody(channels: ["c": Self.read], groups: ["g": Self.read]))
        let auth = "uuid=u&auth=\(AccessFixture.auth(reader))"
        let publish = try await fixture.call("/publish/pub-c-test/sub-c-test/0/c/0/1?\(auth)")
        XCTAssertEqual(publish.status, 403)
        XCTAssertTrue(publish.body.hasPrefix("{"), "a refused publish is answered with Access Manager's object")
        let add = try await fixture.call("/v1/channel-registration/sub-key/sub-c-test/channel-group/g?add=c&\(auth)")
        XCTAssertEqual(add.status, 403)
        let history = try await fixture.call("/v2/history/sub-key/sub-c-test/channel/c?\(auth)")
        XCTAssertEqual(history.status, 200)
        XCTAssertTrue(history.body.hasPrefix("[[]"), "nothing was stored: \(history.body)")
        let channels = try await fixture.call("/v1/channel-registration/sub-key/sub-c-test/channel-group/g?\(auth)")
        XCTAssertTrue(channels.body.contains(#""channels":[]"#), channels.body)
    }

    func testOnlyTheAuthorizedUUIDMayUseAToken() async throws {
        let fixture = try AccessFixture()
        let token = try await fixture.grant(AccessFixture.grantBody(channels: ["c": Self.write], uuid: "alice"))
        let alice = try await fixture.call("/publish/pub-c-test/sub-c-test/0/c/0/1?uuid=alice&auth=\(AccessFixture.auth(token))")
        XCTAssertEqual(alice.status, 200, alice.body)
        for other in ["uuid=bob&", ""] {
            let answer = try await fixture.call("/publish/pub-c-test/sub-c-test/0/c/0/1?\(other)auth=\(AccessFixture.auth(token))")
            XCTAssertEqual(answer.status, 403, other)
        }
    }

    func testPatternsAreRegularExpressions() async throws {
        let fixture = try AccessFixture()
        let token = try await fixture.grant(AccessFixture.grantBody(patterns: ["^room-[0-9]+$": Self.read | Self.write]))
        for (channel, status) in [("room-1", 200), ("room-42", 200), ("room-x", 403), ("aroom-1", 403), ("room-1x", 403)] {
            let answer = try await fixture.call("/publish/pub-c-test/sub-c-test/0/\(channel)/0/1?uuid=u&auth=\(AccessFixture.auth(token))")
            XCTAssertEqual(answer.status, status, channel)
        }
    }

    func testExpiredForgedAndMalformedTokensAreRefusedAndTheNodeCarriesOn() async throws {
        let fixture = try AccessFixture()
        let token = try await fixture.grant(AccessFixture.grantBody(ttl: 1, channels: ["c": Self.write]))
        let forged = try AccessToken.decode(token).signed(secret: "not-the-secret").encoded()
        let reference = "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNyoENzcGOgRHV1aWShZnV1aWQtMRhoQ3BhdKVEY2hhbqFtXmNoYW5uZWwtXFMqJBjvQ2dycKF0XjpjaGFubmVsX2dyb3VwLVxTKiQFQ3VzcqBDc3BjoER1dWlkoWpedXVpZC1cUyokGGhEbWV0YaBEdXVpZHR0ZXN0LWF1dGhvcml6ZWQtdXVpZENzaWdYIPpU-vCe9rkpYs87YUrFNWkyNq8CVvmKwEjVinnDrJJc"
        var random = SystemRandomNumberGenerator()
        let garbage = (0..<50).map { _ in String((0..<Int.random(in: 1...200, using: &random)).map { _ in
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=".randomElement(using: &random)!
        }) }
        let standardAlphabet = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let unpadded = String(token.reversed().drop(while: { $0 == "=" }).reversed())
        let variants = [standardAlphabet, unpadded].filter { $0 != token }
        let bad = variants + [forged, reference, String(token.dropLast(7)), String(token.prefix(10)), token + "AAAA", "",
                   String(repeating: "A", count: 8_000), "%%%"] + garbage
        for text in bad {
            let answer = try await fixture.call("/publish/pub-c-test/sub-c-test/0/c/0/1?uuid=u&auth=\(AccessFixture.auth(text))")
            XCTAssertEqual(answer.status, 403, text.prefix(40).description)
        }
        let fine = try await fixture.call("/publish/pub-c-test/sub-c-test/0/c/0/1?uuid=u&auth=\(AccessFixture.auth(token))")
        XCTAssertEqual(fine.status, 200)
        fixture.clock.advance(by: .seconds(61))
        let expired = try await fixture.call("/publish/pub-c-test/sub-c-test/0/c/0/1?uuid=u&auth=\(AccessFixture.auth(token))")
        XCTAssertEqual(expired.body, #"{"message":"Token is expired","error":true,"service":"Access Manager","status":403}"#)
    }

    func testKeysetsSharingASecretDoNotShareTokens() async throws {
        let clock = ManualClock(1_700_000_000 * 1_000_000_000)
        let node = Node(keysets: [Keyset(publishKey: "p1", subscribeKey: "s1", secretKey: "shared"),
                                  Keyset(publishKey: "p2", subscribeKey: "s2", secretKey: "shared")],
                        clock: TimetokenClock(wall: clock))
        let router = Router(node: node)
        let body = AccessFixture.grantBody(channels: ["c": Self.write])
        let pairs = [("timestamp", "1700000000"), ("uuid", "u")]
        let signature = RequestSignature.v2(secret: "shared", method: "POST", publishKey: "p1", path: "/v3/pam/s1/grant",
                                            canonicalQuery: RequestSignature.canonicalQuery(pairs), body: body)
        var grant = try PubNubRequest(method: .POST, uri: "/v3/pam/s1/grant?timestamp=1700000000&uuid=u&signature=\(signature)",
                                      body: ByteBuffer(bytes: body))
        grant.headers = [:]
        let answer = await router.answer(grant)
        let text = String(buffer: try XCTUnwrap(answer).body)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let token = try XCTUnwrap((object?["data"] as? [String: Any])?["token"] as? String, text)
        for (keys, status) in [("p1/s1", 200), ("p2/s2", 403)] {
            let reply = await router.answer(try PubNubRequest(method: .GET, uri: "/publish/\(keys)/0/c/0/1?uuid=u&auth=\(AccessFixture.auth(token))"))
            XCTAssertEqual(reply?.status.code, UInt(status), keys)
        }
    }

    func testAnOpenKeysetIgnoresTokensAndSignatures() async throws {
        let fixture = try AccessFixture()
        for query in ["", "?auth=garbage", "?auth=x&signature=v2.nope&timestamp=1"] {
            let answer = try await fixture.call("/publish/demo/demo/0/c/0/1" + query)
            XCTAssertEqual(answer.status, 200, query)
        }
    }

    func testWholeKeysetListingsNeedTheSecret() async throws {
        let fixture = try AccessFixture()
        let token = try await fixture.grant(AccessFixture.grantBody(channels: ["c": Self.all], groups: ["g": Self.all]))
        for uri in ["/v2/presence/sub-key/sub-c-test", "/v1/channel-registration/sub-key/sub-c-test/channel-group"] {
            let answer = try await fixture.call(uri + "?uuid=u&auth=\(AccessFixture.auth(token))")
            XCTAssertEqual(answer.status, 403, uri)
        }
        let leave = try await fixture.call("/v2/presence/sub-key/sub-c-test/channel/other/leave?uuid=u&auth=\(AccessFixture.auth(token))")
        XCTAssertEqual(leave.status, 200, "leave needs a valid token and nothing more")
        let whereNow = try await fixture.call("/v2/presence/sub-key/sub-c-test/uuid/someone?uuid=u&auth=\(AccessFixture.auth(token))")
        XCTAssertEqual(whereNow.status, 200, whereNow.body)
    }
}
