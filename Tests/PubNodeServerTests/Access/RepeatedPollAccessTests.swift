import NIOCore
import NIOEmbedded
import NIOHTTP1
import PubNodeAccessWire
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// A connection's repeated long-poll on an Access Manager keyset is checked against its token on
/// every poll: the authorization point reads the access request it keeps whenever Access Manager
/// applies (on an open keyset it reads none of it, which `Docs/performance.md` measures).
final class RepeatedPollAccessTests: XCTestCase {
    func testARepeatedPollIsRefusedOnceItsTokenIsRevoked() throws {
        let fixture = try AccessFixture()
        let token = try waitedFor { try await fixture.grant(AccessFixture.grantBody(channels: ["room": 3], uuid: "u")) }
        let channel = EmbeddedChannel()
        try PubNodeHTTPServer.configureConnection(channel.pipeline.syncOperations, router: fixture.router)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        let connection = Connection(channel: channel)
        let poll = { (cursor: String) in
            "GET /v2/subscribe/\(AccessFixture.sub)/room/0?uuid=u&auth=\(AccessFixture.auth(token))&tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n"
        }
        try connection.send(poll("0"))
        let cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        try connection.send(poll(cursor))
        XCTAssertNil(try connection.response(), "parked")
        _ = try fixture.node.begin(PublishRequest(publishKey: AccessFixture.pub, subscribeKey: AccessFixture.sub,
                                                  channel: "room", payload: Array("1".utf8), uuid: "u", authKey: token))
        connection.runLoop()
        let delivered = try XCTUnwrap(try connection.response())
        XCTAssertEqual(delivered.status, 200)
        let next = try XCTUnwrap(delivered.json["t"]?["t"]?.stringValue)
        let handler = try channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        let kept = try XCTUnwrap(handler.state.lastSubscribe, "the poll is kept")

        let revokePath = "/v3/pam/\(AccessFixture.sub)/grant/\(RequestSignature.pamEncode(token))"
        let revoked = try waitedFor { try await fixture.call(fixture.signedTarget(.DELETE, revokePath), .DELETE) }
        XCTAssertEqual(revoked.status, 200, revoked.body)
        try connection.send(poll(next))
        let refused = try XCTUnwrap(try connection.response())
        XCTAssertTrue(handler.state.lastSubscribe === kept, "answered from the kept subscribe, not a fresh decode")
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.json["message"], .string("Token is revoked"))
    }

    func testTheOpenPolicyFlagFollowsThePolicy() {
        var authorizer = NodeAuthorizer()
        XCTAssertTrue(authorizer.allowsEveryKeysetOperation)
        authorizer.policy = SwitchableAuthorizer()
        XCTAssertFalse(authorizer.allowsEveryKeysetOperation, "another policy is asked")
        authorizer.policy = OpenAuthorizer()
        XCTAssertTrue(authorizer.allowsEveryKeysetOperation)
        XCTAssertFalse(NodeAuthorizer(policy: SwitchableAuthorizer()).allowsEveryKeysetOperation)
    }
}
