import Foundation
import NIOCore
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// In-process hooks through the production pipeline, on a real socket (before hooks answer from
/// a task, which an embedded channel's loop cannot take).
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

    /// Answers with the headers it was given, one `name=value` a line, sorted.
    struct Headers: RequestHookHandler {
        func respond(to request: HookRequest) async throws -> HookResponse {
            HookResponse(status: 200, contentType: "text/plain",
                         body: Array(request.headers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                             .joined(separator: "\n").utf8))
        }
    }

    struct Odd: RequestHookHandler {
        func respond(to request: HookRequest) async throws -> HookResponse {
            HookResponse(status: Int(request.query["status"] ?? "") ?? -1, body: Array("body".utf8))
        }
    }

    func testOnRequestHandlerStatusesAreCheckedBeforeTheyAreWritten() async throws {
        let engine = try HookEngine(bindings: [
            HookBinding(name: "odd", trigger: .onRequest, subscribeKey: "demo", channels: ["odd"], handler: .request(Odd())),
        ])
        let node = try await SocketNode.start(Node(hooks: engine))
        for (status, expected, body) in [("-1", 502, nil), ("99", 502, nil), ("600", 502, nil), ("204", 204, ""), ("418", 418, "body")] {
            let response = try XCTUnwrap(try node.get("/v1/blocks/sub-key/demo/odd?status=\(status)"))
            XCTAssertEqual(response.status, expected, status)
            if let body { XCTAssertEqual(response.text, body, status) }
        }
        try await node.server.shutdown()
    }

    private func node() async throws -> SocketNode {
        let engine = try HookEngine(bindings: [
            HookBinding(name: "guard", trigger: .beforePublish, subscribeKey: "demo", channels: ["chat.*"], handler: .before(Guard())),
            HookBinding(name: "echo", trigger: .onRequest, subscribeKey: "demo", channels: ["echo"], handler: .request(Echo())),
        ])
        return try await SocketNode.start(Node(hooks: engine))
    }

    func testBeforeHookAbortIsAPublishShapedErrorAndPipelinedRequestsWait() async throws {
        let node = try await node()
        let connection = try RawSocket(port: node.port)
        connection.send("GET /publish/demo/demo/0/chat.room/0/%22spam%22 HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try XCTUnwrap(connection.response())
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.json[0]?.stringValue, "0")
        XCTAssertEqual(refused.json[1]?.stringValue, "No spam")
        let time = try XCTUnwrap(connection.response())
        XCTAssertEqual(time.status, 200, "the pipelined request is answered after the deferred one")
        XCTAssertNotNil(time.json[0])
        try await node.server.shutdown()
    }

    func testBeforeHookModificationIsWhatSubscribersReceive() async throws {
        let node = try await node()
        let handshake = try XCTUnwrap(try node.get("/v2/subscribe/demo/chat.room/0?tt=0"))
        let cursor = try XCTUnwrap(handshake.json["t"]?["t"]?.stringValue)
        let sent = try XCTUnwrap(try node.get("/publish/demo/demo/0/chat.room/0/%22lower%22"))
        XCTAssertEqual(sent.status, 200, sent.text)
        let delivered = try XCTUnwrap(try node.get("/v2/subscribe/demo/chat.room/0?tt=\(cursor)"))
        XCTAssertEqual(delivered.json["m"]?[0]?["d"]?.stringValue, "LOWER")
        XCTAssertEqual(try node.get("/publish/demo/demo/0/plain/0/%22lower%22")?.status, 200, "unbound channels publish at once")
        try await node.server.shutdown()
    }

    func testInProcessOnRequestHandlerAnswersWithItsOwnType() async throws {
        let node = try await node()
        let connection = try RawSocket(port: node.port)
        connection.send("POST /v1/blocks/sub-key/demo/echo?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nping")
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["content-type"], "text/plain")
        XCTAssertEqual(response.text, "POST echo 1 ping")
        XCTAssertEqual(try node.get("/v1/blocks/sub-key/demo/other")?.status, 404)
        try await node.server.shutdown()
    }

    func testOnRequestHandlersSeeThePeerNotTheClaimedForwardedForNorCredentials() async throws {
        let engine = try HookEngine(bindings: [
            HookBinding(name: "headers", trigger: .onRequest, subscribeKey: "demo", channels: ["h"], handler: .request(Headers())),
        ])
        let node = try await SocketNode.start(Node(hooks: engine))
        let connection = try RawSocket(port: node.port)
        connection.send("GET /v1/blocks/sub-key/demo/h HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.9.8.7\r\n"
                        + "Authorization: Bearer secret\r\nUser-Agent: probe\r\n\r\n")
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.text, "user-agent=probe\nx-forwarded-for=127.0.0.1")
        try await node.server.shutdown()
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
