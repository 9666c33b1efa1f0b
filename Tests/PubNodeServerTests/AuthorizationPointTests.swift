import Dispatch
import NIOCore
import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import Synchronization
import PubNodeTestSupport
import XCTest

/// Records every access request and refuses the operations it is told to.
final class AccessLog: Authorizer {
    private let log = Mutex<[AccessRequest]>([])
    private let refused: Set<AccessRequest.Operation>

    init(refusing refused: Set<AccessRequest.Operation> = []) { self.refused = refused }

    func authorize(_ request: AccessRequest) throws(PubNodeError) {
        log.withLock { $0.append(request) }
        if refused.contains(request.operation) { throw .forbidden("refused \(request.operation.rawValue)") }
    }

    /// The requests recorded since the last call, and forgets them.
    func take() -> [AccessRequest] {
        log.withLock { log in
            defer { log = [] }
            return log
        }
    }
}

/// Every endpoint reaches the node's single authorization point exactly once, naming its
/// operation and every resource with the permission it needs; a refusal changes nothing.
final class AuthorizationPointTests: XCTestCase {
    struct Echo: RequestHookHandler {
        func respond(to request: HookRequest) async throws -> HookResponse { HookResponse(status: 200, body: Array("ok".utf8)) }
    }

    private func router(_ log: AccessLog) throws -> Router {
        let clock = TimetokenClock()
        let history = MessageHistory(store: MemoryHistoryStore(), policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 1)
        let hooks = try HookEngine(bindings: [HookBinding(name: "echo", trigger: .onRequest, subscribeKey: "demo",
                                                          channels: ["echo"], handler: .request(Echo()))])
        return Router(node: Node(clock: clock, authorizer: log, hooks: hooks, history: history))
    }

    /// Routes `uri` and waits for a deferred answer; a long-poll counts as answered.
    private func send(_ router: Router, _ uri: String, method: HTTPMethod = .GET) throws -> Int {
        switch router.route(try PubNubRequest(method: method, uri: uri)) {
        case .reply(let reply): return Int(reply.status.code)
        case .poll: return 200
        case .deferred(let start):
            let status = Mutex(0)
            let done = DispatchSemaphore(value: 0)
            start { reply in
                status.withLock { $0 = Int(reply.status.code) }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            return status.withLock { $0 }
        }
    }

    func testEachEndpointAuthorizesOnceWithItsResources() throws {
        let log = AccessLog()
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
             [R(.group, "g", .manage), R(.channel, "c", .read)]),
            ("/v1/channel-registration/sub-key/demo/channel-group/g", .GET, .listGroupChannels, [R(.group, "g", .read)]),
            ("/v1/channel-registration/sub-key/demo/channel-group/g?remove=c", .GET, .removeGroupChannels,
             [R(.group, "g", .manage), R(.channel, "c", .read)]),
            ("/v1/channel-registration/sub-key/demo/channel-group/g/remove", .GET, .deleteGroup, [R(.group, "g", .manage)]),
            ("/v2/history/sub-key/demo/channel/c", .GET, .history, [R(.channel, "c", .read)]),
            ("/v3/history/sub-key/demo/channel/c,d", .GET, .history, [R(.channel, "c", .read), R(.channel, "d", .read)]),
            ("/v3/history/sub-key/demo/message-counts/c?timetoken=1", .GET, .messageCounts, [R(.channel, "c", .read)]),
            ("/v3/history/sub-key/demo/channel/c", .DELETE, .deleteHistory, [R(.channel, "c", .delete)]),
            ("/v1/blocks/sub-key/demo/echo", .GET, .onRequest, []),
        ]
        for (uri, method, operation, resources) in cases {
            XCTAssertEqual(try send(router, uri, method: method), 200, uri)
            let seen = log.take()
            XCTAssertEqual(seen.count, 1, "\(uri) must authorize exactly once")
            XCTAssertEqual(seen.first?.operation, operation, uri)
            XCTAssertEqual(seen.first?.subscribeKey, "demo", uri)
            XCTAssertEqual(seen.first?.resources, resources, uri)
        }
        XCTAssertEqual(try send(router, "/time/0"), 200)
        XCTAssertTrue(log.take().isEmpty, "the time endpoint is public")
    }

    func testARefusalIsAForbiddenAnswerAndChangesNothing() throws {
        let log = AccessLog(refusing: [.publish, .addGroupChannels, .heartbeat, .onRequest, .deleteHistory])
        let router = try router(log)
        XCTAssertEqual(try send(router, "/publish/demo/demo/0/c/0/1"), 403)
        XCTAssertEqual(try send(router, "/v1/channel-registration/sub-key/demo/channel-group/g?add=c"), 403)
        XCTAssertEqual(try send(router, "/v2/presence/sub-key/demo/channel/c/heartbeat?uuid=u"), 403)
        XCTAssertEqual(try send(router, "/v1/blocks/sub-key/demo/echo"), 403)
        XCTAssertEqual(try send(router, "/v3/history/sub-key/demo/channel/c", method: .DELETE), 403)
        let node = router.node
        XCTAssertTrue(node.broker.keyset("demo")?.read(Subscription(channels: ["c"]), after: .zero).deliveries.isEmpty ?? false,
                      "a refused publish is not buffered")
        XCTAssertEqual(try node.broker.keyset("demo")?.channels(inGroup: "g"), [], "a refused add changes no group")
        XCTAssertEqual(node.presence.keyset("demo")?.whereNow(uuid: "u"), [], "a refused heartbeat makes nobody present")
    }

    /// Routes with headers and returns the status and body.
    private func call(_ router: Router, _ uri: String, method: HTTPMethod = .GET,
                      headers: [String: String] = [:]) throws -> (Int, String) {
        var request = try PubNubRequest(method: method, uri: uri)
        request.headers = headers
        switch router.route(request) {
        case .reply(let reply): return (Int(reply.status.code), String(buffer: reply.body))
        case .poll: return (200, "")
        case .deferred(let start):
            let answer = Mutex<(Int, String)>((0, ""))
            let done = DispatchSemaphore(value: 0)
            start { reply in
                answer.withLock { $0 = (Int(reply.status.code), String(buffer: reply.body)) }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            return answer.withLock { $0 }
        }
    }

    func testTheOperatorsEndpointsNeedTheTokenWhateverThePolicy() throws {
        let hubs = [ChannelHub(subscribeKey: "demo", limits: Limits(), clock: TimetokenClock())]
        let open = Node(keysets: [.demo], limits: Limits(), broker: MemoryBroker(hubs: hubs), presence: MemoryPresence(hubs: hubs),
                        clock: TimetokenClock(), authorizer: OpenAuthorizer())
        XCTAssertEqual(try call(Router(node: open), "/v1/admin/hooks").0, 403, "no token configured: refused")
        XCTAssertEqual(try call(Router(node: open), "/v1/admin/hooks/dead-letters").0, 403)

        let guarded = Router(node: Node(adminToken: "0123456789abcdef"))
        let token = ["authorization": "Bearer 0123456789abcdef"]
        XCTAssertEqual(try call(guarded, "/v1/admin/hooks/nothing-here").0, 401, "the token is checked before the path")
        XCTAssertEqual(try call(guarded, "/v1/admin/hooks/dead-letters?limit=x").0, 401, "and before the parameters")
        XCTAssertEqual(try call(guarded, "/v1/admin/hooks/nothing-here", headers: token).0, 404)
        XCTAssertEqual(try call(guarded, "/v1/admin/hooks/dead-letters?limit=x", headers: token).0, 400)
        XCTAssertEqual(try call(guarded, "/v1/admin/hooks?hook=nope", headers: token).0, 404, "an unknown hook is named")
        XCTAssertEqual(try call(guarded, "/v1/admin/hooks", headers: token).0, 200)
    }

    func testABadKeyOrMissingStorageIsReportedBeforeBadParameters() throws {
        let router = Router(node: Node())
        let subscribe = try call(router, "/v2/subscribe/nope/c/0?tt=x")
        XCTAssertEqual(subscribe.0, 400)
        XCTAssertTrue(subscribe.1.contains("Invalid Key"), subscribe.1)
        XCTAssertTrue(try call(router, "/v2/presence/sub-key/nope/channel/c?limit=-1").1.contains("Invalid Key"))
        let history = try call(router, "/v2/history/sub-key/demo/channel/c?count=0")
        XCTAssertEqual(history.0, 403, "storage is off for this node: that comes first")
        XCTAssertEqual(try call(router, "/v1/channel-registration/sub-key/nope/channel-group", method: .POST).0, 400)
    }
}
