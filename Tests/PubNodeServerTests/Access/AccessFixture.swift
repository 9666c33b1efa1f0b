import NIOCore
import NIOHTTP1
import PubNodeAccessWire
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// A node with an Access Manager keyset (`pub-c-test`/`sub-c-test`, secret `sec-c-test`) and the
/// open demo keyset, on a manual clock at 2023-11-14T22:13:20Z (unix 1,700,000,000), routed
/// without sockets; helpers sign requests the way the SDKs do and grant tokens.
struct AccessFixture {
    static let (pub, sub, secret) = ("pub-c-test", "sub-c-test", "sec-c-test")
    static let adminToken = "admin-token-0123456789"

    let clock: ManualClock
    let store: any AccessStore
    let history: MessageHistory
    let node: Node
    let router: Router

    init(clock: ManualClock = ManualClock(1_700_000_000 * 1_000_000_000), store: any AccessStore = MemoryAccessStore(),
         historyStore: any HistoryStore = MemoryHistoryStore()) throws {
        self.clock = clock
        self.store = store
        let timetokens = TimetokenClock(wall: clock)
        history = MessageHistory(store: historyStore, policies: [Self.sub: HistoryPolicy(), "demo": HistoryPolicy()],
                                 created: HistoryPolicy(), clock: timetokens, flushMilliseconds: 1)
        node = Node(keysets: [Keyset(publishKey: Self.pub, subscribeKey: Self.sub, secretKey: Self.secret), .demo],
                    clock: timetokens, adminToken: Self.adminToken, history: history, accessStore: store)
        try node.restoreAccess()
        router = Router(node: node)
    }

    /// The same stores and clock, a new node: a restart (history committed first, as a draining node does).
    func restarted() throws -> AccessFixture {
        history.close()
        return try AccessFixture(clock: clock, store: store, historyStore: history.store)
    }

    var now: UInt64 { clock.nowNanoseconds() / 1_000_000_000 }

    /// `path?query` with `timestamp` and a v2 signature made with `secret` as the SDKs make it.
    func signedTarget(_ method: HTTPMethod, _ path: String, _ query: [(String, String)] = [], body: [UInt8]? = nil,
                      secret: String = secret, publishKey: String = pub, timestamp: UInt64? = nil) -> String {
        var pairs = query + [("timestamp", String(timestamp ?? now))]
        if !pairs.contains(where: { $0.0 == "uuid" }) { pairs.append(("uuid", "backend")) }
        let signature = RequestSignature.v2(secret: secret, method: method.rawValue, publishKey: publishKey, path: path,
                                            canonicalQuery: RequestSignature.canonicalQuery(pairs), body: body)
        pairs.append(("signature", signature))
        return path + "?" + pairs.map { "\($0.0)=\(RequestSignature.pamEncode($0.1))" }.joined(separator: "&")
    }

    /// Routes a request and returns its status, body and Retry-After; a long-poll counts as 200.
    func call(_ target: String, _ method: HTTPMethod = .GET, body: [UInt8]? = nil,
              headers: [String: String] = [:]) async throws -> (status: Int, body: String) {
        var request = try PubNubRequest(method: method, uri: target, body: body.map { ByteBuffer(bytes: $0) })
        request.headers = headers
        guard let reply = await router.answer(request) else { return (200, "") }
        return (Int(reply.status.code), String(buffer: reply.body))
    }

    /// The grant body the Python SDK sends for these grants (users and spaces mirror uuids and channels).
    static func grantBody(ttl: Int = 60, channels: [String: Int] = [:], groups: [String: Int] = [:], uuids: [String: Int] = [:],
                          patterns: [String: Int] = [:], uuid: String? = nil) -> [UInt8] {
        func map(_ entries: [String: Int]) -> String {
            "{" + entries.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        }
        let resources = #"{"channels": \#(map(channels)), "groups": \#(map(groups)), "uuids": \#(map(uuids)), "users": \#(map(uuids)), "spaces": \#(map(channels))}"#
        let pattern = #"{"channels": \#(map(patterns)), "groups": {}, "uuids": {}, "users": {}, "spaces": \#(map(patterns))}"#
        let authorized = uuid.map { #", "uuid": "\#($0)""# } ?? ""
        return Array(#"{"ttl": \#(ttl), "permissions": {"resources": \#(resources), "patterns": \#(pattern), "meta": {}\#(authorized)}}"#.utf8)
    }

    /// Grants a token on the Access Manager keyset (or `subscribeKey` with `secret`).
    func grant(_ body: [UInt8], subscribeKey: String = sub, secret: String = secret, publishKey: String = pub,
               file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let path = "/v3/pam/\(subscribeKey)/grant"
        let answer = try await call(signedTarget(.POST, path, body: body, secret: secret, publishKey: publishKey), .POST, body: body)
        XCTAssertEqual(answer.status, 200, answer.body, file: file, line: line)
        let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        return try XCTUnwrap((object?["data"] as? [String: Any])?["token"] as? String, file: file, line: line)
    }

    /// `token` as a query value.
    static func auth(_ token: String) -> String { RequestSignature.pamEncode(token) }
}
