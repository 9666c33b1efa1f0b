import Foundation
import NIOCore
import NIOHTTP1
import PubNodeAccessWire
import PubNodeCore
import PubNodeHistoryPostgres
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Two nodes on one PostgreSQL database (each with its own pool, as two processes would have):
/// App Context is one, and keysets and revocations made through one node apply on the other once
/// it reconciles (called directly here; the runtime calls it every 2 s).
final class SharedStoresTests: PostgresTestCase {
    private static let admin = "admin-token-0123456789"
    private let clock = ManualClock(1_700_000_000 * 1_000_000_000)

    private struct Member {
        let node: Node
        let router: Router
    }

    private func member(_ location: PostgresLocation) throws -> Member {
        let database = try database(location: location)
        let node = Node(keysets: [.demo], clock: TimetokenClock(wall: clock), adminToken: Self.admin,
                        accessStore: PostgresAccessStore(database: database), objects: PostgresObjectStore(database: database))
        try node.restoreAccess()
        return Member(node: node, router: Router(node: node))
    }

    private func call(_ member: Member, _ method: HTTPMethod, _ target: String, body: String? = nil,
                      admin: Bool = false) async throws -> (status: Int, body: String) {
        var request = try PubNubRequest(method: method, uri: target, body: body.map { ByteBuffer(string: $0) })
        if admin { request.headers = ["authorization": "Bearer \(Self.admin)"] }
        guard let reply = await member.router.answer(request) else { return (200, "") }
        return (Int(reply.status.code), String(buffer: reply.body))
    }

    /// `path` signed with `secret` at the clock's time, as the SDKs sign.
    private func signed(_ method: HTTPMethod, _ path: String, body: String? = nil, publishKey: String, secret: String) -> String {
        let pairs = [("timestamp", String(clock.nowNanoseconds() / 1_000_000_000)), ("uuid", "backend")]
        let signature = RequestSignature.v2(secret: secret, method: method.rawValue, publishKey: publishKey, path: path,
                                            canonicalQuery: RequestSignature.canonicalQuery(pairs), body: body.map { Array($0.utf8) })
        return path + "?" + (pairs + [("signature", signature)]).map { "\($0.0)=\(RequestSignature.pamEncode($0.1))" }
            .joined(separator: "&")
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testKeysetsAndRevocationsMadeThroughOneNodeApplyOnTheOtherAfterItsReconcile() async throws {
        let location = try location()
        let a = try member(location), b = try member(location)
        let created = try await call(a, .POST, "/v1/admin/keysets",
                                     body: #"{"subscribeKey":"sub-shared","publishKey":"pub-shared","accessManager":true}"#, admin: true)
        XCTAssertEqual(created.status, 200, created.body)
        let secret = try XCTUnwrap((try json(created.body)["keyset"] as? [String: Any])?["secretKey"] as? String)
        let publish = "/publish/pub-shared/sub-shared/0/chat/0/%22hi%22?uuid=u"
        XCTAssertNil(b.node.registry.keyset("sub-shared"), "not served before the reconcile")

        var report = try await b.node.reconcileAccess()
        XCTAssertEqual(report.added, ["sub-shared"])
        XCTAssertEqual(b.node.registry.keyset("sub-shared")?.secretKey, secret)
        let grantBody = #"{"ttl": 60, "permissions": {"resources": {"channels": {"chat": 3}, "groups": {}, "uuids": {}}, "patterns": {"channels": {}, "groups": {}, "uuids": {}}, "meta": {}}}"#
        let granted = try await call(a, .POST, signed(.POST, "/v3/pam/sub-shared/grant", body: grantBody, publishKey: "pub-shared",
                                                      secret: secret), body: grantBody)
        XCTAssertEqual(granted.status, 200, granted.body)
        let token = try XCTUnwrap((try json(granted.body)["data"] as? [String: Any])?["token"] as? String)
        let authorized = publish + "&auth=" + RequestSignature.pamEncode(token)
        let before = try await call(b, .GET, authorized)
        XCTAssertEqual(before.status, 200, "B serves the keyset and accepts A's token: \(before.body)")
        let unauthorized = try await call(b, .GET, publish)
        XCTAssertEqual(unauthorized.status, 403, "Access Manager guards it on B")

        let revoked = try await call(a, .DELETE, signed(.DELETE, "/v3/pam/sub-shared/grant/\(token)", publishKey: "pub-shared",
                                                        secret: secret))
        XCTAssertEqual(revoked.status, 200, revoked.body)
        let onA = try await call(a, .GET, authorized)
        XCTAssertEqual(onA.status, 403, "refused at once where it was revoked")
        report = try await b.node.reconcileAccess()
        XCTAssertEqual(report.revoked, 1)
        let after = try await call(b, .GET, authorized)
        XCTAssertEqual(after.status, 403, after.body)
        XCTAssertTrue(after.body.contains("revoked"), after.body)
        let quiet = try await b.node.reconcileAccess()
        XCTAssertEqual(quiet, AccessReconciliation(), "nothing new: nothing changes")

        let disabled = try await call(a, .POST, "/v1/admin/keysets/sub-shared/disable", admin: true)
        XCTAssertEqual(disabled.status, 200, disabled.body)
        report = try await b.node.reconcileAccess()
        XCTAssertEqual(report.updated, ["sub-shared"])
        XCTAssertEqual(b.node.registry.keyset("sub-shared")?.isDisabled, true)

        let deleted = try await call(a, .DELETE, "/v1/admin/keysets/sub-shared", admin: true)
        XCTAssertEqual(deleted.status, 200, deleted.body)
        report = try await b.node.reconcileAccess()
        XCTAssertEqual(report.removed, ["sub-shared"])
        XCTAssertNil(b.node.registry.keyset("sub-shared"))
    }

    func testAReconcileNeverUndoesAKeysetChangeTheNodeMadeMeanwhile() async throws {
        let location = try location()
        let a = try member(location), b = try member(location)
        _ = try await call(a, .POST, "/v1/admin/keysets", body: #"{"subscribeKey":"sub-x"}"#, admin: true)
        _ = try await b.node.reconcileAccess()
        // B rotates the secret; A, which has not reconciled since, still serves the old one and
        // must take B's: its own view never wins over the store.
        let rotated = try await call(b, .POST, "/v1/admin/keysets/sub-x/rotate", admin: true)
        let secret = try XCTUnwrap((try json(rotated.body)["keyset"] as? [String: Any])?["secretKey"] as? String)
        XCTAssertNotEqual(a.node.registry.keyset("sub-x")?.secretKey, secret)
        let report = try await a.node.reconcileAccess()
        XCTAssertEqual(report.updated, ["sub-x"])
        XCTAssertEqual(a.node.registry.keyset("sub-x")?.secretKey, secret)
        let matching = try await b.node.reconcileAccess()
        XCTAssertEqual(matching, AccessReconciliation(), "B already matches the store")
    }

    func testAppContextSetThroughOneNodeIsReadThroughTheOther() async throws {
        let location = try location()
        let a = try member(location), b = try member(location)
        let set = try await call(a, .PATCH, "/v2/objects/demo/uuids/ann?include=custom",
                                 body: #"{"name":"Ann","custom":{"team":"blue"}}"#)
        XCTAssertEqual(set.status, 200, set.body)
        let read = try await call(b, .GET, "/v2/objects/demo/uuids/ann?include=custom")
        XCTAssertEqual(read.status, 200, read.body)
        let data = try XCTUnwrap(try json(read.body)["data"] as? [String: Any])
        XCTAssertEqual(data["name"] as? String, "Ann")
        XCTAssertEqual((data["custom"] as? [String: Any])?["team"] as? String, "blue")
        let eTag = try XCTUnwrap(data["eTag"] as? String)
        let membership = try await call(b, .PATCH, "/v2/objects/demo/uuids/ann/channels",
                                        body: #"{"set":[{"channel":{"id":"lobby"}}]}"#)
        XCTAssertEqual(membership.status, 200, membership.body)
        let members = try await call(a, .GET, "/v2/objects/demo/channels/lobby/uuids")
        XCTAssertTrue(members.body.contains(#""id":"ann""#), members.body)
        // An If-Match made with B's eTag is checked against what A's change stored.
        var stale = try PubNubRequest(method: .PATCH, uri: "/v2/objects/demo/uuids/ann", body: ByteBuffer(string: #"{"name":"Bea"}"#))
        stale.headers = ["if-match": eTag]
        _ = await a.router.answer(stale)
        var again = try PubNubRequest(method: .PATCH, uri: "/v2/objects/demo/uuids/ann", body: ByteBuffer(string: #"{"name":"Cy"}"#))
        again.headers = ["if-match": eTag]
        let refused = await b.router.answer(again)
        XCTAssertEqual(refused?.status.code, 412, refused.map { String(buffer: $0.body) } ?? "")
    }
}
