import NIOHTTP1
import PubNodeCore
import PubNodeTestSupport
import XCTest

/// What an Access Manager token lets its holder do with App Context (PubNub's mapping).
final class ObjectTokenTests: XCTestCase {
    typealias Grant = (channels: [String: Int], uuids: [String: Int])
    static let (manage, delete, get, update, join) = (4, 8, 32, 64, 128)
    static let all = 0xEF

    /// Each endpoint, its body, the grant it needs, and the resource whose permission matters.
    static let cases: [(String, HTTPMethod, String?, Grant, String)] = [
        ("/v2/objects/sub-c-test/uuids/u", .GET, nil, ([:], ["u": get]), "u"),
        ("/v2/objects/sub-c-test/uuids/u", .PATCH, "{}", ([:], ["u": update]), "u"),
        ("/v2/objects/sub-c-test/uuids/u", .DELETE, nil, ([:], ["u": delete]), "u"),
        ("/v2/objects/sub-c-test/channels/c", .GET, nil, (["c": get], [:]), "c"),
        ("/v2/objects/sub-c-test/channels/c", .PATCH, "{}", (["c": update], [:]), "c"),
        ("/v2/objects/sub-c-test/channels/c", .DELETE, nil, (["c": delete], [:]), "c"),
        ("/v2/objects/sub-c-test/uuids/u/channels", .GET, nil, ([:], ["u": get]), "u"),
        ("/v2/objects/sub-c-test/uuids/u/channels", .PATCH, #"{"set":[{"channel":{"id":"c"}}]}"#,
         (["c": join], ["u": update]), "c"),
        ("/v2/objects/sub-c-test/uuids/u/channels", .PATCH, #"{"set":[{"channel":{"id":"c"}}]}"#,
         (["c": join], ["u": update]), "u"),
        ("/v2/objects/sub-c-test/channels/c/uuids", .GET, nil, (["c": get], [:]), "c"),
        ("/v2/objects/sub-c-test/channels/c/uuids", .PATCH, #"{"set":[{"uuid":{"id":"u"}}]}"#, (["c": manage], [:]), "c"),
    ]

    func testEachObjectsEndpointNeedsExactlyItsPermission() async throws {
        let fixture = try AccessFixture()
        for (uri, method, body, grant, missing) in Self.cases {
            let bytes = body.map { Array($0.utf8) }
            let exact = try await fixture.grant(AccessFixture.grantBody(channels: grant.channels, uuids: grant.uuids))
            let allowed = try await fixture.call(uri + "?uuid=u&auth=\(AccessFixture.auth(exact))", method, body: bytes)
            XCTAssertNotEqual(allowed.status, 403, "\(method) \(uri) with its permission: \(allowed.body)")
            func without(_ map: [String: Int]) -> [String: Int] {
                map.reduce(into: [:]) { $0[$1.key] = $1.key == missing ? (Self.all & ~$1.value) : $1.value }
            }
            let lacking = try await fixture.grant(AccessFixture.grantBody(channels: without(grant.channels),
                                                                           uuids: without(grant.uuids)))
            let refused = try await fixture.call(uri + "?uuid=u&auth=\(AccessFixture.auth(lacking))", method, body: bytes)
            XCTAssertEqual(refused.status, 403, "\(method) \(uri) without it: \(refused.body)")
            XCTAssertTrue(refused.body.contains(#""\#(missing)""#), refused.body)
            let none = try await fixture.call(uri + "?uuid=u", method, body: bytes)
            XCTAssertEqual(none.status, 403, "\(method) \(uri) without a token")
        }
    }

    func testListingEveryObjectNeedsTheSecret() async throws {
        let fixture = try AccessFixture()
        let token = try await fixture.grant(AccessFixture.grantBody(channels: ["c": Self.all], uuids: ["u": Self.all]))
        for uri in ["/v2/objects/sub-c-test/uuids", "/v2/objects/sub-c-test/channels"] {
            let answer = try await fixture.call(uri + "?uuid=u&auth=\(AccessFixture.auth(token))")
            XCTAssertEqual(answer.status, 403, uri)
            let signed = fixture.signedTarget(.GET, uri)
            let allowed = try await fixture.call(signed)
            XCTAssertEqual(allowed.status, 200, "\(uri) signed: \(allowed.body)")
        }
    }
}
