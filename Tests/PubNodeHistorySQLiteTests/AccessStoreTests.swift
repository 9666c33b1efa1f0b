import GRDB
import NIOCore
import NIOHTTP1
import PubNodeCore
import PubNodeHistoryPostgres
import PubNodeHistorySQLite
import PubNodeServer
import XCTest

/// The access stores (SQLite, memory, PostgreSQL) keep what the tenants API creates, App Context
/// events switch included; the SQLite one upgrades a file written before the switch existed.
final class AccessStoreTests: XCTestCase {
    private static let adminToken = "admin-token-0123456789"

    override class func setUp() { PostgresSubject.start(for: self) }
    override class func tearDown() { PostgresSubject.stop(for: self) }

    /// Ways to open a store, each opening the same data again (a restart, or another node).
    private func openers() throws -> [(String, () throws -> any AccessStore)] {
        let path = try HistoryFixture.directory(self) + "/" + SQLiteAccessStore.fileName
        let memory = MemoryAccessStore()
        var out: [(String, () throws -> any AccessStore)] = [("sqlite", { try SQLiteAccessStore.file(path: path) }),
                                                              ("memory", { memory })]
        if let database = try PostgresSubject.database(self) {
            out.append(("postgres", { PostgresAccessStore(database: database) }))
        }
        return out
    }

    private func node(_ store: any AccessStore) throws -> Router {
        let node = Node(adminToken: Self.adminToken, accessStore: store)
        try node.restoreAccess()
        return Router(node: node)
    }

    private func call(_ router: Router, _ method: HTTPMethod, _ uri: String, body: String? = nil) async throws -> [String: Any] {
        var request = try PubNubRequest(method: method, uri: uri, body: body.map { ByteBuffer(string: $0) })
        request.headers = ["authorization": "Bearer \(Self.adminToken)"]
        let reply = await router.answer(request)
        let text = reply.map { String(buffer: $0.body) } ?? ""
        XCTAssertEqual(reply?.status.code, 200, text)
        return try XCTUnwrap(parse(text) as? [String: Any], text)
    }

    /// Each listed keyset's `appContextEvents`, by subscribe key.
    private func listed(_ router: Router) async throws -> [String: Bool] {
        let list = try await call(router, .GET, "/v1/admin/keysets")
        let keysets = try XCTUnwrap(list["keysets"] as? [[String: Any]])
        var result: [String: Bool] = [:]
        for keyset in keysets {
            result[try XCTUnwrap(keyset["subscribeKey"] as? String)] = try XCTUnwrap(keyset["appContextEvents"] as? Bool)
        }
        return result
    }

    func testTheSwitchIsCreatedListedAndRestoredAfterReopening() async throws {
        for (name, open) in try openers() {
            let router = try node(try open())
            let created = try await call(router, .POST, "/v1/admin/keysets",
                                         body: #"{"subscribeKey":"sub-on","appContextEvents":true,"accessManager":false}"#)
            XCTAssertEqual((created["keyset"] as? [String: Any])?["appContextEvents"] as? Bool, true, name)
            _ = try await call(router, .POST, "/v1/admin/keysets", body: #"{"subscribeKey":"sub-off"}"#)
            let expected = ["demo": false, "sub-on": true, "sub-off": false]
            let listedNow = try await listed(router)
            XCTAssertEqual(listedNow, expected, name)

            let reopened = try node(try open())
            let listedAfter = try await listed(reopened)
            XCTAssertEqual(listedAfter, expected, "\(name): kept across a restart")
            XCTAssertEqual(reopened.node.registry.keyset("sub-on")?.appContextEvents, true,
                           "\(name): the restored keyset is served with events on")
            XCTAssertEqual(reopened.node.registry.keyset("sub-off")?.appContextEvents, false, name)
        }
    }

    func testKeysetsAndRevocationsAreKeptReplacedAndForgottenWithTheirKeyset() throws {
        for (name, open) in try openers() {
            let store = try open()
            let limited = StoredKeyset(keyset: Keyset(publishKey: "pub-a", subscribeKey: "sub-a", secretKey: "sec-a",
                                                      rateLimits: RateLimits(publishesPerSecond: 2.5)))
            try store.save(limited)
            try store.save(StoredKeyset(keyset: Keyset(publishKey: "pub-b", subscribeKey: "sub-b", secretKey: nil, accessManager: false),
                                        disabled: true))
            var rotated = limited
            rotated.keyset.secretKey = "sec-a2"
            try store.save(rotated)
            XCTAssertEqual(try open().keysets().map(\.keyset.subscribeKey), ["sub-a", "sub-b"], name)
            XCTAssertEqual(try open().keysets().first, rotated, "replaced, limits kept (\(name))")
            XCTAssertEqual(try open().keysets().last?.disabled, true, name)

            try store.revoke(Revocation(subscribeKey: "sub-a", tokenID: "aa", expiresAt: 2_000))
            try store.revoke(Revocation(subscribeKey: "sub-a", tokenID: "old", expiresAt: 900))
            try store.revoke(Revocation(subscribeKey: "sub-b", tokenID: "bb", expiresAt: 2_000))
            XCTAssertEqual(Set(try open().revocations(now: 1_000).map(\.tokenID)), ["aa", "bb"], "expired ones dropped (\(name))")
            let page = try open().revocations(now: 1_000, since: nil)
            XCTAssertEqual(Set(page.revocations.map(\.tokenID)), ["aa", "bb"], name)
            if let cursor = page.cursor {
                try store.revoke(Revocation(subscribeKey: "sub-b", tokenID: "cc", expiresAt: 2_000))
                let next = try open().revocations(now: 1_000, since: cursor)
                XCTAssertTrue(next.revocations.contains { $0.tokenID == "cc" }, "a later revocation is in the next page (\(name))")
            }
            try store.delete(subscribeKey: "sub-a")
            XCTAssertEqual(try open().keysets().map(\.keyset.subscribeKey), ["sub-b"], name)
            XCTAssertFalse(try open().revocations(now: 1_000).contains { $0.subscribeKey == "sub-a" }, name)
        }
    }

    func testAFileWrittenBeforeTheSwitchExistedOpensWithEventsOff() throws {
        let path = try HistoryFixture.directory(self) + "/" + SQLiteAccessStore.fileName
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                CREATE TABLE keyset (subscribe_key TEXT PRIMARY KEY NOT NULL, publish_key TEXT NOT NULL, secret_key TEXT,
                                     access_manager INTEGER NOT NULL, disabled INTEGER NOT NULL,
                                     publishes_per_second REAL, requests_per_second REAL);
                CREATE TABLE revocation (subscribe_key TEXT NOT NULL, token_id TEXT NOT NULL, expires_at INTEGER NOT NULL,
                                         PRIMARY KEY (subscribe_key, token_id));
                INSERT INTO keyset VALUES ('sub-old', 'pub-old', 'sec-old', 1, 0, NULL, NULL);
                """)
        }
        try old.close()
        let store = try SQLiteAccessStore.file(path: path)
        let keysets = try store.keysets()
        XCTAssertEqual(keysets.map(\.keyset.subscribeKey), ["sub-old"])
        XCTAssertEqual(keysets.first?.keyset.appContextEvents, false)
        XCTAssertEqual(keysets.first?.keyset.secretKey, "sec-old", "the upgrade keeps what was stored")
        var enabled = try XCTUnwrap(keysets.first)
        enabled.keyset.appContextEvents = true
        try store.save(enabled)
        XCTAssertEqual(try SQLiteAccessStore.file(path: path).keysets(), [enabled])
    }
}
