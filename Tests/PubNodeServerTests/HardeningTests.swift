import NIOCore
import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Inputs that once got through: numbers SDKs cannot read, hook paths that look like traversal,
/// methods hooks do not serve.
final class HardeningTests: XCTestCase {
    struct Echo: RequestHookHandler {
        func respond(to request: HookRequest) async throws -> HookResponse {
            HookResponse(status: 200, body: Array(request.path.utf8))
        }
    }

    private func status(_ router: Router, _ uri: String, _ method: HTTPMethod = .GET) async throws -> (Int, String) {
        let answer = await router.answer(try PubNubRequest(method: method, uri: uri))
        let reply = try XCTUnwrap(answer)
        return (Int(reply.status.code), String(buffer: reply.body))
    }

    func testNumbersTooLongForTheSDKsAreRefused() async throws {
        let router = Router(node: Node())
        let long = "1" + String(repeating: "0", count: 5000)
        let refused = try await status(router, "/publish/demo/demo/0/c/0/\(long)")
        XCTAssertEqual(refused.0, 400)
        XCTAssertTrue(refused.1.contains("Invalid JSON"), refused.1)
        let inMeta = try await status(router, "/publish/demo/demo/0/c/0/1?meta=%7B%22n%22%3A\(long)%7D")
        XCTAssertEqual(inMeta.0, 400)
        let fine = "1" + String(repeating: "0", count: 999)
        let accepted = try await status(router, "/publish/demo/demo/0/c/0/\(fine)")
        XCTAssertEqual(accepted.0, 200, "a 1,000-character number is still fine")
        XCTAssertFalse(JSONValidator().isValid(Array(("-0." + String(repeating: "5", count: 998)).utf8)))
        XCTAssertTrue(JSONValidator().isValid(Array(("-0." + String(repeating: "5", count: 997)).utf8)))
    }

    func testOnRequestPathsAreNamesAndOnlyDocumentedMethodsReachHooks() async throws {
        let hooks = try HookEngine(bindings: [HookBinding(name: "echo", trigger: .onRequest, subscribeKey: "demo",
                                                          channels: ["echo/*"], handler: .request(Echo()))])
        let router = Router(node: Node(hooks: hooks))
        for path in ["echo/../admin", "echo/./x", "echo//x", "echo/a%2F..%2Fb"] {
            let answer = try await status(router, "/v1/blocks/sub-key/demo/\(path)")
            XCTAssertEqual(answer.0, 400, path)
        }
        let patch = try await status(router, "/v1/blocks/sub-key/demo/echo/x", .PATCH)
        XCTAssertEqual(patch.0, 405)
    }
}
