import Foundation
import NIOHTTP1
import PubNodeAccessWire
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Grant, revoke and signatures over the HTTP routes, with PubNub's bodies.
final class AccessManagerEndpointTests: XCTestCase {
    /// The notes' grant vector (§1.2), sent exactly as the Python SDK sent it, is accepted and
    /// answers a token holding those grants.
    func testTheSDKsSignedGrantVectorIsAccepted() async throws {
        let fixture = try AccessFixture()
        let body = Array(#"{"ttl": 60, "permissions": {"resources": {"channels": {"ch1": 3}, "groups": {"g1": 5}, "uuids": {"u1": 96}, "users": {"u1": 96}, "spaces": {"ch1": 3}}, "patterns": {"channels": {"^ch-.*$": 1}, "groups": {}, "uuids": {}, "users": {}, "spaces": {"^ch-.*$": 1}}, "meta": {"role": "admin"}, "uuid": "my-uuid"}}"#.utf8)
        let target = "/v3/pam/sub-c-test/grant?pnsdk=PubNub-Python%2F10.4.0&signature=v2.wBC_JsFVNy8ZkdDgIynuwOxJaNfu5HYRmhh7n-nbbu8&timestamp=1700000000&uuid=my-uuid"
        let answer = try await fixture.call(target, .POST, body: body)
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertTrue(answer.body.hasPrefix(#"{"data":{"message":"Success","token":""#), answer.body)
        let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        let text = try XCTUnwrap((object?["data"] as? [String: Any])?["token"] as? String)
        XCTAssertEqual(text.count % 4, 0, "padded, as the SDK's parse_token needs")
        let token = try AccessToken.decode(text)
        XCTAssertTrue(token.isSigned(by: AccessFixture.sub + "\n" + AccessFixture.secret), "bound to its keyset")
        XCTAssertFalse(token.isSigned(by: AccessFixture.secret))
        XCTAssertEqual(token.ttlMinutes, 60)
        XCTAssertEqual(token.issued, 1_700_000_000)
        XCTAssertEqual(token.authorizedUUID, "my-uuid")
        XCTAssertEqual(token.resources.channels, ["ch1": [.read, .write]])
        XCTAssertEqual(token.resources.groups, ["g1": [.read, .manage]])
        XCTAssertEqual(token.resources.uuids, ["u1": [.get, .update]])
        XCTAssertEqual(token.patterns.channels, ["^ch-.*$": .read])
        XCTAssertEqual(token.meta, .map([CBORPair(.text("role"), .text("admin"))]))
    }

    func testGrantNeedsAGoodFreshSignature() async throws {
        let fixture = try AccessFixture()
        let body = AccessFixture.grantBody(channels: ["a": 1])
        let path = "/v3/pam/sub-c-test/grant"
        let unsigned = try await fixture.call(path + "?uuid=x", .POST, body: body)
        XCTAssertEqual(unsigned.status, 403)
        XCTAssertTrue(unsigned.body.contains(#""service":"Access Manager""#), unsigned.body)
        let wrongSecret = try await fixture.call(fixture.signedTarget(.POST, path, body: body, secret: "nope"), .POST, body: body)
        XCTAssertEqual(wrongSecret.status, 403)
        XCTAssertTrue(wrongSecret.body.contains("Signature does not match"), wrongSecret.body)
        let stale = fixture.signedTarget(.POST, path, body: body, timestamp: fixture.now - 61)
        let staleAnswer = try await fixture.call(stale, .POST, body: body)
        XCTAssertEqual(staleAnswer.status, 403)
        let early = try await fixture.call(fixture.signedTarget(.POST, path, body: body, timestamp: fixture.now + 61), .POST, body: body)
        XCTAssertEqual(early.status, 403)
        let edge = try await fixture.call(fixture.signedTarget(.POST, path, body: body, timestamp: fixture.now - 60), .POST, body: body)
        XCTAssertEqual(edge.status, 200, "60 seconds off is still inside the window")
        var tampered = body
        tampered[tampered.count - 3] = UInt8(ascii: "9")
        let bodyChanged = try await fixture.call(fixture.signedTarget(.POST, path, body: body), .POST, body: tampered)
        XCTAssertEqual(bodyChanged.status, 403, "the body is signed")
        let otherKeyset = try await fixture.call(fixture.signedTarget(.POST, "/v3/pam/demo/grant", body: body), .POST, body: body)
        XCTAssertEqual(otherKeyset.status, 403, "demo has no secret: nothing can sign for it")
    }

    func testBadGrantsGetPubNubs400() async throws {
        let fixture = try AccessFixture()
        let path = "/v3/pam/sub-c-test/grant"
        for ttl in [0, 43_201, -5] {
            let body = AccessFixture.grantBody(ttl: ttl, channels: ["a": 1])
            let answer = try await fixture.call(fixture.signedTarget(.POST, path, body: body), .POST, body: body)
            XCTAssertEqual(answer.status, 400, "ttl \(ttl)")
            XCTAssertEqual(answer.body, #"{"error":{"message":"Invalid ttl","source":"grant","details":[{"message":"Range should be 1 to 43200 minute(s).","location":"ttl","locationType":"body"}]},"service":"Access Manager","status":400}"#)
        }
        let stringTTL = Array(#"{"ttl": "15", "permissions": {"resources": {"channels": {"a": 1}}, "patterns": {}, "meta": {}}}"#.utf8)
        let accepted = try await fixture.call(fixture.signedTarget(.POST, path, body: stringTTL), .POST, body: stringTTL)
        XCTAssertEqual(accepted.status, 200, "an older SDK sends ttl as a string")
        let bad: [String] = [
            "not json", "[]", #"{"ttl": 5}"#, #"{"ttl": 5, "permissions": {"resources": {"channels": {"a": 256}}}}"#,
            #"{"ttl": 5, "permissions": {"resources": {"channels": {"a": "r"}}}}"#,
            #"{"ttl": 5, "permissions": {"patterns": {"channels": {"(a": 1}}}}"#,
            #"{"ttl": 5, "permissions": {"patterns": {"channels": {"\#(String(repeating: "a", count: 300))": 1}}}}"#,
            #"{"ttl": 5, "permissions": {"resources": {"channels": {"a": 1}}, "meta": []}}"#,
            #"{"ttl": 5, "permissions": {"resources": {}}}"#,
        ]
        for text in bad {
            let body = Array(text.utf8)
            let answer = try await fixture.call(fixture.signedTarget(.POST, path, body: body), .POST, body: body)
            XCTAssertEqual(answer.status, 400, text)
            XCTAssertTrue(answer.body.contains(#""source":"grant""#), answer.body)
        }
        let costly = AccessFixture.grantBody(patterns: Dictionary(uniqueKeysWithValues: (0..<40).map {
            ("^(a|b|c|d){0,30}x\($0)$", 1)
        }))
        let tooCostly = try await fixture.call(fixture.signedTarget(.POST, path, body: costly), .POST, body: costly)
        XCTAssertEqual(tooCostly.status, 400, "patterns are bounded in cost together: \(tooCostly.body)")
        let many = Dictionary(uniqueKeysWithValues: (0..<201).map { ("c\($0)", 1) })
        let tooMany = AccessFixture.grantBody(channels: many)
        let answer = try await fixture.call(fixture.signedTarget(.POST, path, body: tooMany), .POST, body: tooMany)
        XCTAssertEqual(answer.status, 400)
    }

    func testRevokedTokensAreRefusedAcrossARestartUntilTheyExpire() async throws {
        let fixture = try AccessFixture()
        let token = try await fixture.grant(AccessFixture.grantBody(ttl: 10, channels: ["a": 3]))
        let publish = "/publish/pub-c-test/sub-c-test/0/a/0/1?uuid=u&auth=\(AccessFixture.auth(token))"
        let before = try await fixture.call(publish)
        XCTAssertEqual(before.status, 200, before.body)

        let revokePath = "/v3/pam/sub-c-test/grant/\(RequestSignature.pamEncode(token))"
        let unsigned = try await fixture.call(revokePath, .DELETE)
        XCTAssertEqual(unsigned.status, 403)
        let revoked = try await fixture.call(fixture.signedTarget(.DELETE, revokePath), .DELETE)
        XCTAssertEqual(revoked.status, 200, revoked.body)
        XCTAssertEqual(revoked.body, #"{"data":{"message":"Success"},"service":"Access Manager","status":200}"#)
        let after = try await fixture.call(publish)
        XCTAssertEqual(after.status, 403)
        XCTAssertEqual(after.body, #"{"message":"Token is revoked","error":true,"service":"Access Manager","status":403}"#)

        let restarted = try fixture.restarted()
        let afterRestart = try await restarted.call(publish)
        XCTAssertEqual(afterRestart.status, 403, "the revocation was kept")
        XCTAssertTrue(afterRestart.body.contains("revoked"), afterRestart.body)
        XCTAssertEqual(try fixture.store.revocations(now: fixture.now).count, 1)
        fixture.clock.advance(by: .seconds(601))
        XCTAssertEqual(try fixture.store.revocations(now: fixture.now).count, 0, "dropped once the token expired")
        let expired = try await restarted.call(publish)
        XCTAssertTrue(expired.body.contains("expired"), expired.body)
        let revokeExpired = try await restarted.call(restarted.signedTarget(.DELETE, revokePath), .DELETE)
        XCTAssertEqual(revokeExpired.status, 400)
        XCTAssertTrue(revokeExpired.body.contains("Token is expired."), revokeExpired.body)
        let garbage = try await restarted.call(restarted.signedTarget(.DELETE, "/v3/pam/sub-c-test/grant/abc"), .DELETE)
        XCTAssertEqual(garbage.status, 400)
        XCTAssertTrue(garbage.body.contains(#""source":"revoke""#), garbage.body)
    }

    func testSignedRequestsActAsTheSecretsHolder() async throws {
        let fixture = try AccessFixture()
        let publish = fixture.signedTarget(.GET, "/publish/pub-c-test/sub-c-test/0/any/0/%22hi%22")
        let answer = try await fixture.call(publish)
        XCTAssertEqual(answer.status, 200, answer.body)
        let global = try await fixture.call(fixture.signedTarget(.GET, "/v2/presence/sub-key/sub-c-test"))
        XCTAssertEqual(global.status, 200, global.body)
        let groups = try await fixture.call(fixture.signedTarget(.GET, "/v1/channel-registration/sub-key/sub-c-test/channel-group"))
        XCTAssertEqual(groups.status, 200, groups.body)
        let forged = try await fixture.call(fixture.signedTarget(.GET, "/v2/presence/sub-key/sub-c-test", secret: "guess"))
        XCTAssertEqual(forged.status, 403)
        let wrongPath = fixture.signedTarget(.GET, "/v2/presence/sub-key/sub-c-test").replacingOccurrences(
            of: "/v2/presence/sub-key/sub-c-test", with: "/v2/presence/sub-key/sub-c-test/channel/x")
        let moved = try await fixture.call(wrongPath)
        XCTAssertEqual(moved.status, 403, "the path is signed")
        let post = Array(#"{"a":1}"#.utf8)
        let postPath = "/publish/pub-c-test/sub-c-test/0/any/0"
        let jsStyle = fixture.signedTarget(.GET, postPath)
        let jsAnswer = try await fixture.call(jsStyle, .POST, body: post)
        XCTAssertEqual(jsAnswer.status, 200, "the JavaScript SDK signs a POST publish as a GET without body: \(jsAnswer.body)")
        var pairs = [("uuid", "u"), ("timestamp", String(fixture.now))]
        let v1 = RequestSignature.v1(secret: AccessFixture.secret, subscribeKey: AccessFixture.sub, publishKey: AccessFixture.pub,
                                     path: postPath, canonicalQuery: RequestSignature.canonicalQuery(pairs))
        pairs.append(("signature", v1))
        let pythonStyle = postPath + "?" + pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let pythonAnswer = try await fixture.call(pythonStyle, .POST, body: post)
        XCTAssertEqual(pythonAnswer.status, 200, "the Python SDK signs a POST publish with v1: \(pythonAnswer.body)")
        let v1OnGet = try await fixture.call(pythonStyle.replacingOccurrences(of: "/0?", with: "/0/1?"))
        XCTAssertEqual(v1OnGet.status, 403, "v1 (no method, no body) is accepted for a POST publish only")
        let getFormOnHistory = fixture.signedTarget(.GET, "/v3/history/sub-key/sub-c-test/channel/c")
        let deleted = try await fixture.call(getFormOnHistory, .DELETE)
        XCTAssertEqual(deleted.status, 403, "a GET signature does not sign a DELETE")
    }
}
