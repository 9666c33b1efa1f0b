import Foundation
import NIOCore
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// In-process hooks through the production pipeline (no sockets).
final class HookEndpointTests: XCTestCase {
    struct Guard: BeforeHookHandler {
        func before(_ event: HookEvent) async throws -> HookDecision {
            let text = String(decoding: event.message ?? [], as: UTF8.self)
            if text.contains("spam") { return .abort(status: 403, text: "No spam") }
            if text.contains("lower") { return .modify(message: Array(text.uppercased().utf8), meta: nil) }
            return .pass
        }
    }

    struct Echo: RequestHookHandler {
        func respond(to request: HookRequest) async throws -> HookResponse {
            HookResponse(status: 200, contentType: "text/plain",
                         body: Array("\(request.method) \(request.path) \(request.query["q"] ?? "") \(String(decoding: request.body, as: UTF8.self))".utf8))
        }
    }

    private func node() throws -> EmbeddedNode {
        let engine = try HookEngine(bindings: [
            HookBinding(name: "guard", trigger: .beforePublish, subscribeKey: "demo", channels: ["chat.*"], handler: .before(Guard())),
            HookBinding(name: "echo", trigger: .onRequest, subscribeKey: "demo", channels: ["echo"], handler: .request(Echo())),
        ])
        return EmbeddedNode(hooks: engine)
    }

    /// Polls the connection for a deferred answer.
    private func answer(_ connection: Connection) async throws -> Response {
        for _ in 0..<500 {
            if let response = try connection.response() { return response }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw XCTSkip("no answer")
    }

    func testBeforeHookAbortIsAPublishShapedErrorAndPipelinedRequestsWait() async throws {
        let node = try node()
        let connection = try node.connect()
        try connection.send("GET /publish/demo/demo/0/chat.room/0/%22spam%22 HTTP/1.1\r\nHost: x\r\n\r\n"
                            + "GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try await answer(connection)
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.json[0]?.stringValue, "0")
        XCTAssertEqual(refused.json[1]?.stringValue, "No spam")
        let time = try await answer(connection)
        XCTAssertEqual(time.status, 200, "the pipelined request is answered after the deferred one")
        XCTAssertNotNil(time.json[0])
    }

    func testBeforeHookModificationIsWhatSubscribersReceive() async throws {
        let node = try node()
        let cursor = try node.handshake("chat.room")
        let connection = try node.connect()
        try connection.send("GET /publish/demo/demo/0/chat.room/0/%22lower%22 HTTP/1.1\r\nHost: x\r\n\r\n")
        let sent = try await answer(connection)
        XCTAssertEqual(sent.status, 200, sent.text)
        let delivered = try node.get("/v2/subscribe/demo/chat.room/0?tt=\(cursor)")
        XCTAssertEqual(delivered.json["m"]?[0]?["d"]?.stringValue, "LOWER")
        XCTAssertEqual(try node.publish("plain", #""lower""#).isEmpty, false, "unbound channels publish at once")
    }

    func testInProcessOnRequestHandlerAnswersWithItsOwnType() async throws {
        let node = try node()
        let connection = try node.connect()
        try connection.send("POST /v1/blocks/sub-key/demo/echo?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nping")
        let response = try await answer(connection)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["content-type"], "text/plain")
        XCTAssertEqual(response.text, "POST echo 1 ping")
        XCTAssertEqual(try node.get("/v1/blocks/sub-key/demo/other").status, 404)
    }

    func testAdminEndpointsNeedTheToken() throws {
        let open = EmbeddedNode()
        XCTAssertEqual(try open.get("/v1/admin/hooks").status, 403)
        let guarded = EmbeddedNode(adminToken: "0123456789abcdef")
        XCTAssertEqual(try guarded.get("/v1/admin/hooks").status, 401)
        let connection = try guarded.connect()
        try connection.send("GET /v1/admin/hooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer 0123456789abcdef\r\n\r\n")
        let response = try XCTUnwrap(try connection.response())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, #"{"status":200,"service":"Hooks","hooks":[]}"#)
    }
}
