import Foundation
import NIOHTTP1
import PubNodeAccessWire
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// The tenants API: keysets created, rotated, disabled and deleted at run time, isolated from one
/// another and kept across restarts.
final class TenantEndpointTests: XCTestCase {
    private let admin = ["authorization": "Bearer \(AccessFixture.adminToken)"]

    private func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// Creates a keyset and returns its keys (publish, subscribe, secret).
    private func create(_ fixture: AccessFixture, body: String = "") async throws -> (String, String, String) {
        let answer = try await fixture.call("/v1/admin/keysets", .POST, body: Array(body.utf8), headers: admin)
        XCTAssertEqual(answer.status, 200, answer.body)
        let keyset = try XCTUnwrap(try object(answer.body)["keyset"] as? [String: Any])
        XCTAssertEqual(keyset["origin"] as? String, "created")
        return (try XCTUnwrap(keyset["publishKey"] as? String), try XCTUnwrap(keyset["subscribeKey"] as? String),
                try XCTUnwrap(keyset["secretKey"] as? String))
    }

    func testTheAPINeedsTheAdminToken() async throws {
        let fixture = try AccessFixture()
        for (path, method) in [("/v1/admin/keysets", HTTPMethod.GET), ("/v1/admin/keysets", .POST),
                               ("/v1/admin/keysets/sub-c-test/rotate", .POST), ("/v1/admin/keysets/sub-c-test", .DELETE)] {
            let answer = try await fixture.call(path, method, headers: ["authorization": "Bearer wrong-token-000000"])
            XCTAssertEqual(answer.status, 401, path)
        }
        let configured = try await fixture.call("/v1/admin/keysets/sub-c-test", .DELETE, headers: admin)
        XCTAssertEqual(configured.status, 403, "a configured keyset is changed in the configuration")
        let unknown = try await fixture.call("/v1/admin/keysets/nope/disable", .POST, headers: admin)
        XCTAssertEqual(unknown.status, 404)
        let badBody = try await fixture.call("/v1/admin/keysets", .POST, body: Array(#"{"subscribeKey":"a b"}"#.utf8), headers: admin)
        XCTAssertEqual(badBody.status, 400)
        let taken = try await fixture.call("/v1/admin/keysets", .POST, body: Array(#"{"subscribeKey":"demo"}"#.utf8), headers: admin)
        XCTAssertEqual(taken.status, 400)
    }

    func testACreatedKeysetIsPrivateIsolatedAndListedWithoutItsSecret() async throws {
        let fixture = try AccessFixture()
        let (pubA, subA, secretA) = try await create(fixture)
        let (pubB, subB, secretB) = try await create(fixture, body: #"{"publishKey":"pub-b","subscribeKey":"sub-b"}"#)
        XCTAssertEqual([pubB, subB], ["pub-b", "sub-b"])
        XCTAssertNotEqual(secretA, secretB)

        let unauthenticated = try await fixture.call("/publish/\(pubA)/\(subA)/0/c/0/1")
        XCTAssertEqual(unauthenticated.status, 403, "Access Manager is on for a tenant by default")
        let tokenA = try await fixture.grant(AccessFixture.grantBody(channels: ["c": 3]), subscribeKey: subA, secret: secretA,
                                             publishKey: pubA)
        let inA = try await fixture.call("/publish/\(pubA)/\(subA)/0/c/0/%22a%22?uuid=u&auth=\(AccessFixture.auth(tokenA))")
        XCTAssertEqual(inA.status, 200, inA.body)
        let inB = try await fixture.call("/publish/\(pubB)/\(subB)/0/c/0/%22a%22?uuid=u&auth=\(AccessFixture.auth(tokenA))")
        XCTAssertEqual(inB.status, 403, "A's token means nothing in B")
        let crossKeys = try await fixture.call("/publish/\(pubA)/\(subB)/0/c/0/1?uuid=u&auth=\(AccessFixture.auth(tokenA))")
        XCTAssertEqual(crossKeys.status, 400, "A's publish key does not publish into B")
        let signedInB = try await fixture.call(fixture.signedTarget(.GET, "/v2/history/sub-key/\(subB)/channel/c",
                                                                   secret: secretA, publishKey: pubB))
        XCTAssertEqual(signedInB.status, 403, "A's secret does not sign for B")
        let historyB = try await fixture.call(fixture.signedTarget(.GET, "/v2/history/sub-key/\(subB)/channel/c",
                                                                   secret: secretB, publishKey: pubB))
        XCTAssertEqual(historyB.status, 200, historyB.body)
        XCTAssertTrue(historyB.body.hasPrefix("[[]"), "B sees nothing of A: \(historyB.body)")

        let list = try await fixture.call("/v1/admin/keysets", headers: admin)
        XCTAssertEqual(list.status, 200)
        XCTAssertFalse(list.body.contains("secretKey"), list.body)
        let keysets = try XCTUnwrap(try object(list.body)["keysets"] as? [[String: Any]])
        XCTAssertEqual(keysets.compactMap { $0["subscribeKey"] as? String }, ["demo", "sub-c-test", subA, "sub-b"].sorted {
            ($0 == "demo" || $0 == "sub-c-test" ? 0 : 1, $0) < ($1 == "demo" || $1 == "sub-c-test" ? 0 : 1, $1)
        })
    }

    func testRotateDisableAndDeleteAreKeptAcrossRestarts() async throws {
        let fixture = try AccessFixture()
        let (pub, sub, secret) = try await create(fixture)
        let token = try await fixture.grant(AccessFixture.grantBody(channels: ["c": 3]), subscribeKey: sub, secret: secret,
                                            publishKey: pub)
        let publish = "/publish/\(pub)/\(sub)/0/c/0/%22kept%22?uuid=u&auth=\(AccessFixture.auth(token))"
        let stored = try await fixture.call(publish)
        XCTAssertEqual(stored.status, 200)

        let restarted = try fixture.restarted()
        let again = try await restarted.call(publish)
        XCTAssertEqual(again.status, 200, "the keyset and its secret survived: \(again.body)")

        let rotated = try await restarted.call("/v1/admin/keysets/\(sub)/rotate", .POST, headers: admin)
        let newSecret = try XCTUnwrap((try object(rotated.body)["keyset"] as? [String: Any])?["secretKey"] as? String)
        XCTAssertNotEqual(newSecret, secret)
        let oldToken = try await restarted.call(publish)
        XCTAssertEqual(oldToken.status, 403, "tokens of the old secret stop working")
        let oldSigned = try await restarted.call(restarted.signedTarget(.GET, "/v2/presence/sub-key/\(sub)", secret: secret,
                                                                        publishKey: pub))
        XCTAssertEqual(oldSigned.status, 403)
        let newSigned = try await restarted.call(restarted.signedTarget(.GET, "/v2/presence/sub-key/\(sub)", secret: newSecret,
                                                                        publishKey: pub))
        XCTAssertEqual(newSigned.status, 200, newSigned.body)

        let disabled = try await restarted.call("/v1/admin/keysets/\(sub)/disable", .POST, headers: admin)
        XCTAssertTrue(disabled.body.contains(#""disabled":true"#), disabled.body)
        let afterRestart = try fixture.restarted()
        let refused = try await afterRestart.call(afterRestart.signedTarget(.GET, "/v2/presence/sub-key/\(sub)",
                                                                            secret: newSecret, publishKey: pub))
        XCTAssertEqual(refused.status, 403, "still disabled after a restart: \(refused.body)")
        let enabled = try await afterRestart.call("/v1/admin/keysets/\(sub)/enable", .POST, headers: admin)
        XCTAssertTrue(enabled.body.contains(#""disabled":false"#), enabled.body)

        let history = afterRestart.signedTarget(.GET, "/v2/history/sub-key/\(sub)/channel/c", secret: newSecret, publishKey: pub)
        let kept = try await afterRestart.call(history)
        XCTAssertTrue(kept.body.contains("kept"), kept.body)
        let deleted = try await afterRestart.call("/v1/admin/keysets/\(sub)", .DELETE, headers: admin)
        XCTAssertEqual(deleted.body, #"{"status":200,"service":"Keysets","deleted":"\#(sub)"}"#)
        let gone = try await afterRestart.call(history)
        XCTAssertEqual(gone.status, 400, "an unknown key: \(gone.body)")
        XCTAssertEqual(try afterRestart.history.store.messages(subscribeKey: sub, channel: "c", query: HistoryQuery(),
                                                               now: 0).count, 0, "its history went with it")
        let recreated = try await afterRestart.call("/v1/admin/keysets", .POST,
                                                    body: Array(#"{"publishKey":"\#(pub)","subscribeKey":"\#(sub)"}"#.utf8),
                                                    headers: admin)
        XCTAssertEqual(recreated.status, 200)
        let empty = try await afterRestart.call(history.replacingOccurrences(of: "signature=", with: "x="))
        XCTAssertEqual(empty.status, 403, "a new secret, nothing carried over")
        XCTAssertEqual(try fixture.store.keysets().map(\.keyset.subscribeKey), [sub])
    }

    func testDeletingWakesItsParkedPolls() async throws {
        let fixture = try AccessFixture()
        let (pub, sub, secret) = try await create(fixture, body: #"{"accessManager":false}"#)
        _ = (pub, secret)
        let handshake = try await fixture.call("/v2/subscribe/\(sub)/c/0?tt=0")
        XCTAssertEqual(handshake.status, 200, "an open tenant needs no token")
        let cursor = try XCTUnwrap(((try object(handshake.body)["t"]) as? [String: Any])?["t"] as? String)
        let request = try PubNubRequest(method: .GET, uri: "/v2/subscribe/\(sub)/c/0?tt=\(cursor)")
        guard case .poll(let poll) = fixture.router.route(request) else { return XCTFail("expected a parked poll") }
        let waiter = TestWaiter()
        XCTAssertNil(poll.park(waiter))
        let deleted = try await fixture.call("/v1/admin/keysets/\(sub)", .DELETE, headers: admin)
        XCTAssertEqual(deleted.status, 200)
        XCTAssertEqual(waiter.wakeCount, 1, "the poll is woken, not left hanging")
    }
}
