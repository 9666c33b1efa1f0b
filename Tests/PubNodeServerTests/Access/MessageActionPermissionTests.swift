import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Access Manager on the message action endpoints: add needs `write`, remove `delete`, get `read`.
final class MessageActionPermissionTests: XCTestCase {
    private let path = "/v1/message-actions/\(AccessFixture.sub)/channel/c"
    private let body = Array(#"{"type":"reaction","value":"smile"}"#.utf8)

    func testAddNeedsWriteOnTheChannel() async throws {
        let fixture = try AccessFixture()
        let reader = try await fixture.grant(AccessFixture.grantBody(channels: ["c": TokenPermissionTests.read], uuid: "u"))
        let refused = try await fixture.call("\(path)/message/100?uuid=u&auth=\(AccessFixture.auth(reader))", .POST, body: body)
        XCTAssertEqual(refused.status, 403, refused.body)
        XCTAssertTrue(refused.body.contains(#""channels":["c"]"#), refused.body)
        let listed = try await fixture.call("\(path)?uuid=u&auth=\(AccessFixture.auth(reader))")
        XCTAssertEqual(listed.status, 200, listed.body)

        let writer = try await fixture.grant(AccessFixture.grantBody(channels: ["c": TokenPermissionTests.write], uuid: "u"))
        let added = try await fixture.call("\(path)/message/100?uuid=u&auth=\(AccessFixture.auth(writer))", .POST, body: body)
        XCTAssertEqual(added.status, 200, added.body)
        let none = try await fixture.call("\(path)/message/100?uuid=u", .POST, body: body)
        XCTAssertEqual(none.status, 403, none.body)
    }

    func testRemoveNeedsDeleteAndAnAuthorizedUUID() async throws {
        let fixture = try AccessFixture()
        let writer = try await fixture.grant(AccessFixture.grantBody(channels: ["c": TokenPermissionTests.write], uuid: "u"))
        let added = try await fixture.call("\(path)/message/100?uuid=u&auth=\(AccessFixture.auth(writer))", .POST, body: body)
        let actionTT = try XCTUnwrap(JSON.parse(Array(added.body.utf8))["data"]?["actionTimetoken"]?.stringValue)
        let target = "\(path)/message/100/action/\(actionTT)?uuid=u"
        let notAllowed = try await fixture.call(target + "&auth=\(AccessFixture.auth(writer))", .DELETE)
        XCTAssertEqual(notAllowed.status, 403, notAllowed.body)
        let deleter = try await fixture.grant(AccessFixture.grantBody(channels: ["c": TokenPermissionTests.delete], uuid: "u"))
        let removed = try await fixture.call(target + "&auth=\(AccessFixture.auth(deleter))", .DELETE)
        XCTAssertEqual(removed.status, 200, removed.body)
    }
}
