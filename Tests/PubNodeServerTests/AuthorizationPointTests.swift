import NIOCore
import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Every endpoint reaches the node's single authorization point exactly once, naming its
/// operation and every resource with the permission it needs; a refusal changes nothing.
final class AuthorizationPointTests: XCTestCase {
    struct Echo: RequestHookHandler {
        func respond(to request: HookRequest) async throws -> HookResponse { HookResponse(status: 200, body: Array("ok".utf8)) }
    }

    private func router(_ log: RecordingAuthorizer) throws -> Router {
        let clock = TimetokenClock()
        let history = MessageHistory(store: MemoryHistoryStore(), policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 1)
        let hooks = try HookEngine(bindings: [HookBinding(name: "echo", trigger: .onRequest, subscribeKey: "demo",
                                                          channels: ["echo"], handler: .request(Echo()))])
        return Router(node: Node(clock: clock, authorizer: log, hooks: hooks, history: history))
    }

    /// Routes `uri` with `headers` and returns the status and body; a long-poll counts as answered.
    private func call(_ router: Router, _ uri: String, method: HTTPMethod = .GET,
                      headers: [String: String] = [:]) async throws -> (Int, String) {
        var request = try PubNubRequest(method: method, uri: uri)
        request.headers = headers
        guard let reply = await router.answer(request) else { return (200, "") }
        return (Int(reply.status.code), String(buffer: reply.body))
    }

    /// The status `uri` is answered with.
    private func send(_ router: Router, _ uri: String, method: HTTPMethod = .GET) async throws -> Int {
        try await call(router, uri, method: method).0
    }

    func testEachEndpointAuthorizesOnceWithItsResources() async throws {
        let log = RecordingAuthorizer()
        let router = try router(log)
        typealias R = AccessRequest.Resource
        let cases: [(String, HTTPMethod, AccessRequest.Operation, [R])] = [
            ("/publish/demo/demo/0/c/0/1?uuid=u", .GET, .publish, [R(.channel, "c", .write)]),
            ("/signal/demo/demo/0/c/0/1", .GET, .signal, [R(.channel, "c", .write)]),
            ("/publish/demo/demo/0/c/0/1?store=0&norep=true", .GET, .fire, [R(.channel, "c", .write)]),
            ("/v2/subscribe/demo/c,a.*/0?tt=0&channel-group=g&uuid=u", .GET, .subscribe,
             [R(.channel, "c", .read), R(.channel, "a.*", .read), R(.group, "g", .read)]),
            ("/v2/subscribe/demo/c/0?tt=1&uuid=u", .GET, .subscribe, [R(.channel, "c", .read)]),
            ("/v2/presence/sub-key/demo/channel/c/heartbeat?uuid=u", .GET, .heartbeat, [R(.channel, "c", .read)]),
            ("/v2/presence/sub-key/demo/channel/c/leave?uuid=u", .GET, .leave, [R(.channel, "c", .read)]),
            ("/v2/presence/sub-key/demo/channel/c", .GET, .hereNow, [R(.channel, "c", .read)]),
            ("/v2/presence/sub-key/demo", .GET, .globalHereNow, []),
            ("/v2/presence/sub-key/demo/uuid/v?uuid=u", .GET, .whereNow, [R(.uuid, "v", .get)]),
            ("/v2/presence/sub-key/demo/channel/c/uuid/v", .GET, .getState, [R(.channel, "c", .read), R(.uuid, "v", .get)]),
            ("/v2/presence/sub-key/demo/channel/c/uuid/u/data?state=%7B%7D&uuid=u", .GET, .setState, [R(.channel, "c", .read)]),
            ("/v1/channel-registration/sub-key/demo/channel-group", .GET, .listGroups, []),
            ("/v1/channel-registration/sub-key/demo/channel-group/g?add=c", .GET, .addGroupChannels,
             [R(.group, "g", .manage)]),
            ("/v1/channel-registration/sub-key/demo/channel-group/g", .GET, .listGroupChannels, [R(.group, "g", .read)]),
            ("/v1/channel-registration/sub-key/demo/channel-group/g?remove=c", .GET, .removeGroupChannels,
             [R(.group, "g", .manage)]),
            ("/v1/channel-registration/sub-key/demo/channel-group/g/remove", .GET, .deleteGroup, [R(.group, "g", .manage)]),
            ("/v2/history/sub-key/demo/channel/c", .GET, .history, [R(.channel, "c", .read)]),
            ("/v3/history/sub-key/demo/channel/c,d", .GET, .history, [R(.channel, "c", .read), R(.channel, "d", .read)]),
            ("/v3/history/sub-key/demo/message-counts/c?timetoken=1", .GET, .messageCounts, [R(.channel, "c", .read)]),
            ("/v3/history/sub-key/demo/channel/c", .DELETE, .deleteHistory, [R(.channel, "c", .delete)]),
            ("/v1/blocks/sub-key/demo/echo", .GET, .onRequest, []),
        ]
        for (uri, method, operation, resources) in cases {
            let answer1 = try await send(router, uri, method: method)
            XCTAssertEqual(answer1, 200, uri)
            let seen = log.take()
            XCTAssertEqual(seen.count, 1, "\(uri) must authorize exactly once")
            XCTAssertEqual(seen.first?.operation, operation, uri)
            XCTAssertEqual(seen.first?.subscribeKey, "demo", uri)
            XCTAssertEqual(seen.first?.resources, resources, uri)
        }
        let answer2 = try await send(router, "/time/0")
        XCTAssertEqual(answer2, 200)
        XCTAssertTrue(log.take().isEmpty, "the time endpoint is public")
    }

    func testARefusalIsAForbiddenAnswerAndChangesNothing() async throws {
        let log = RecordingAuthorizer(refusing: [.publish, .addGroupChannels, .heartbeat, .onRequest, .deleteHistory])
        let router = try router(log)
        let answer3 = try await send(router, "/publish/demo/demo/0/c/0/1")
        XCTAssertEqual(answer3, 403)
        let answer4 = try await send(router, "/v1/channel-registration/sub-key/demo/channel-group/g?add=c")
        XCTAssertEqual(answer4, 403)
        let answer5 = try await send(router, "/v2/presence/sub-key/demo/channel/c/heartbeat?uuid=u")
        XCTAssertEqual(answer5, 403)
        let answer6 = try await send(router, "/v1/blocks/sub-key/demo/echo")
        XCTAssertEqual(answer6, 403)
        let answer7 = try await send(router, "/v3/history/sub-key/demo/channel/c", method: .DELETE)
        XCTAssertEqual(answer7, 403)
        let node = router.node
        XCTAssertTrue(node.broker.keyset("demo")?.read(Subscription(channels: ["c"]), after: .zero).deliveries.isEmpty ?? false,
                      "a refused publish is not buffered")
        XCTAssertEqual(try node.broker.keyset("demo")?.channels(inGroup: "g"), [], "a refused add changes no group")
        XCTAssertEqual(node.presence.keyset("demo")?.whereNow(uuid: "u"), [], "a refused heartbeat makes nobody present")
    }

    func testTheOperatorsEndpointsNeedTheTokenWhateverThePolicy() async throws {
        let hubs = MemoryHubs(limits: Limits(), clock: TimetokenClock())
        let open = Node(keysets: [.demo], limits: Limits(), broker: MemoryBroker(hubs: hubs), presence: MemoryPresence(hubs: hubs),
                        clock: TimetokenClock(), authorizer: OpenAuthorizer())
        let answer8 = try await call(Router(node: open), "/v1/admin/hooks")
        XCTAssertEqual(answer8.0, 403, "no token configured: refused")
        let answer9 = try await call(Router(node: open), "/v1/admin/hooks/dead-letters")
        XCTAssertEqual(answer9.0, 403)

        let guarded = Router(node: Node(adminToken: "0123456789abcdef"))
        let token = ["authorization": "Bearer 0123456789abcdef"]
        let answer10 = try await call(guarded, "/v1/admin/hooks/nothing-here")
        XCTAssertEqual(answer10.0, 401, "the token is checked before the path")
        let answer11 = try await call(guarded, "/v1/admin/hooks/dead-letters?limit=x")
        XCTAssertEqual(answer11.0, 401, "and before the parameters")
        let answer12 = try await call(guarded, "/v1/admin/hooks/nothing-here", headers: token)
        XCTAssertEqual(answer12.0, 404)
        let answer13 = try await call(guarded, "/v1/admin/hooks/dead-letters?limit=x", headers: token)
        XCTAssertEqual(answer13.0, 400)
        let answer14 = try await call(guarded, "/v1/admin/hooks?hook=nope", headers: token)
        XCTAssertEqual(answer14.0, 404, "an unknown hook is named")
        let answer15 = try await call(guarded, "/v1/admin/hooks", headers: token)
        XCTAssertEqual(answer15.0, 200)
    }

    func testABadKeyOrMissingStorageIsReportedBeforeBadParameters() async throws {
        let router = Router(node: Node())
        let subscribe = try await call(router, "/v2/subscribe/nope/c/0?tt=x")
        XCTAssertEqual(subscribe.0, 400)
        XCTAssertTrue(subscribe.1.contains("Invalid Key"), subscribe.1)
        let answer16 = try await call(router, "/v2/presence/sub-key/nope/channel/c?limit=-1")
        XCTAssertTrue(answer16.1.contains("Invalid Key"))
        let history = try await call(router, "/v2/history/sub-key/demo/channel/c?count=0")
        XCTAssertEqual(history.0, 403, "storage is off for this node: that comes first")
        let answer17 = try await call(router, "/v1/channel-registration/sub-key/nope/channel-group", method: .POST)
        XCTAssertEqual(answer17.0, 400)
    }
}
