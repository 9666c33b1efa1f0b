import GRDB
import PubNodeCore
import PubNodeHistoryPostgres
import PubNodeHistorySQLite
import XCTest

/// The object store contract, on memory, SQLite and PostgreSQL (a throwaway server for the
/// class, a schema per test) alike.
final class ObjectStoreTests: XCTestCase {
    override class func setUp() { PostgresSubject.start(for: self) }
    override class func tearDown() { PostgresSubject.stop(for: self) }

    private func stores() throws -> [(String, any ObjectStore)] {
        let file = try HistoryFixture.directory(self) + "/" + SQLiteObjectStore.fileName
        let postgres = try PostgresSubject.database(self).map { [("postgres", PostgresObjectStore(database: $0) as any ObjectStore)] }
        return [("memory", MemoryObjectStore()), ("sqlite-memory", try SQLiteObjectStore(DatabaseQueue())),
                ("sqlite-file", try SQLiteObjectStore.file(path: file))] + (postgres ?? [])
    }

    private func put(_ store: any ObjectStore, _ kind: ObjectKind = .uuid, key: String = "demo", id: String,
                     fields: [String: String] = [:], custom: [String: ObjectJSON]? = nil, max: Int = 100) throws -> AppObject {
        try store.update(kind, subscribeKey: key, id: id, maxObjects: max) { _ in
            AppObject(kind: kind, id: id, fields: fields, custom: custom, updated: 1_700_000_000_123)
        }
    }

    func testSetGetRemoveAndETags() throws {
        for (name, store) in try stores() {
            let first = try put(store, id: "u", fields: ["name": "Ann"], custom: ["n": .number("1.50"), "b": .bool(false)])
            XCTAssertEqual(try store.object(.uuid, subscribeKey: "demo", id: "u"), first, name)
            XCTAssertNil(try store.object(.channel, subscribeKey: "demo", id: "u"), "kinds are apart (\(name))")
            let same = try put(store, id: "u", fields: ["name": "Ann"], custom: ["n": .number("1.50"), "b": .bool(false)])
            XCTAssertEqual(same.eTag, first.eTag, name)
            let renamed = try put(store, id: "u", fields: ["name": "Bea"], custom: ["n": .number("1.50"), "b": .bool(false)])
            XCTAssertNotEqual(renamed.eTag, first.eTag, name)
            let recustomed = try put(store, id: "u", fields: ["name": "Bea"], custom: ["n": .number("2")])
            XCTAssertNotEqual(recustomed.eTag, renamed.eTag, name)
            XCTAssertEqual(try store.objects(.uuid, subscribeKey: "demo").count, 1, name)
            XCTAssertTrue(try store.remove(.uuid, subscribeKey: "demo", id: "u"), name)
            XCTAssertFalse(try store.remove(.uuid, subscribeKey: "demo", id: "u"), name)
            XCTAssertNil(try store.object(.uuid, subscribeKey: "demo", id: "u"), name)
        }
    }

    func testARefusedChangeAndTheObjectLimitLeaveTheStoreUnchanged() throws {
        for (name, store) in try stores() {
            _ = try put(store, id: "a", fields: ["name": "A"], max: 2)
            _ = try put(store, id: "b", max: 2)
            XCTAssertThrowsError(try put(store, id: "c", max: 2), name)
            XCTAssertThrowsError(try store.update(.uuid, subscribeKey: "demo", id: "a", maxObjects: 2) { _ throws(PubNodeError) in
                throw .objectChanged
            }) { XCTAssertEqual($0 as? PubNodeError, .objectChanged, name) }
            XCTAssertEqual(try store.object(.uuid, subscribeKey: "demo", id: "a")?.fields, ["name": "A"], name)
            XCTAssertEqual(try store.objects(.uuid, subscribeKey: "demo").count, 2, name)
        }
    }

    func testMembershipsAndMembersAreSymmetric() throws {
        for (name, store) in try stores() {
            let records = [AppMembership(uuid: "u1", channel: "c1", status: "s", custom: ["r": .string("x")], updated: 5),
                           AppMembership(uuid: "u1", channel: "c2", updated: 5),
                           AppMembership(uuid: "u2", channel: "c1", type: "t", updated: 5)]
            XCTAssertEqual(try store.applyMemberships(subscribeKey: "demo", set: records, delete: [], maxPerObject: 10, maxPerKeyset: 100), [], name)
            let ofU1 = try store.memberships(subscribeKey: "demo", uuid: "u1", channel: nil).sorted { $0.channel < $1.channel }
            XCTAssertEqual(ofU1, [records[0], records[1]], name)
            let ofC1 = try store.memberships(subscribeKey: "demo", uuid: nil, channel: "c1").sorted { $0.uuid < $1.uuid }
            XCTAssertEqual(ofC1, [records[0], records[2]], name)
            let removed = try store.applyMemberships(subscribeKey: "demo", set: [], delete: [("u1", "c1"), ("u9", "c9")],
                                                     maxPerObject: 10, maxPerKeyset: 100)
            XCTAssertEqual(removed, [records[0]], name)
            XCTAssertEqual(try store.memberships(subscribeKey: "demo", uuid: nil, channel: "c1"), [records[2]], name)
            let over = (0..<3).map { AppMembership(uuid: "u3", channel: "x\($0)", updated: 1) }
            XCTAssertThrowsError(try store.applyMemberships(subscribeKey: "demo", set: over, delete: [("u1", "c2")], maxPerObject: 2, maxPerKeyset: 100),
                                 name)
            XCTAssertEqual(try store.memberships(subscribeKey: "demo", uuid: "u3", channel: nil), [], "all or nothing (\(name))")
            XCTAssertEqual(try store.memberships(subscribeKey: "demo", uuid: "u1", channel: nil), [records[1]], name)
        }
    }

    func testAKeysetsMembershipsAreBoundedWhole() throws {
        for (name, store) in try stores() {
            let two = [AppMembership(uuid: "a", channel: "x", updated: 1), AppMembership(uuid: "b", channel: "y", updated: 1)]
            _ = try store.applyMemberships(subscribeKey: "demo", set: two, delete: [], maxPerObject: 10, maxPerKeyset: 2)
            let third = [AppMembership(uuid: "c", channel: "z", updated: 1)]
            XCTAssertThrowsError(try store.applyMemberships(subscribeKey: "demo", set: third, delete: [], maxPerObject: 10,
                                                            maxPerKeyset: 2), name)
            XCTAssertEqual(try store.memberships(subscribeKey: "demo", uuid: "c", channel: nil), [], name)
            _ = try store.applyMemberships(subscribeKey: "demo", set: third, delete: [("a", "x")], maxPerObject: 10,
                                           maxPerKeyset: 2)
            XCTAssertEqual(try store.memberships(subscribeKey: "demo", uuid: "c", channel: nil), third, "room after a delete (\(name))")
            _ = try store.applyMemberships(subscribeKey: "demo", set: [AppMembership(uuid: "c", channel: "z", status: "s", updated: 2)],
                                           delete: [], maxPerObject: 10, maxPerKeyset: 2)
            XCTAssertEqual(try store.memberships(subscribeKey: "demo", uuid: "c", channel: nil).first?.status, "s",
                           "replacing a record adds none (\(name))")
        }
    }

    func testKeysetsAreIsolatedAndDeletedWhole() throws {
        for (name, store) in try stores() {
            _ = try put(store, key: "one", id: "u")
            _ = try put(store, .channel, key: "two", id: "c")
            _ = try store.applyMemberships(subscribeKey: "one", set: [AppMembership(uuid: "u", channel: "c", updated: 1)],
                                           delete: [], maxPerObject: 10, maxPerKeyset: 100)
            XCTAssertNil(try store.object(.uuid, subscribeKey: "two", id: "u"), name)
            XCTAssertEqual(try store.memberships(subscribeKey: "two", uuid: "u", channel: nil), [], name)
            try store.deleteKeyset("one")
            XCTAssertNil(try store.object(.uuid, subscribeKey: "one", id: "u"), name)
            XCTAssertEqual(try store.memberships(subscribeKey: "one", uuid: nil, channel: "c"), [], name)
            XCTAssertNotNil(try store.object(.channel, subscribeKey: "two", id: "c"), name)
        }
    }

    func testTheSQLiteStoreKeepsEverythingAcrossAReopen() throws {
        let path = try HistoryFixture.directory(self) + "/" + SQLiteObjectStore.fileName
        let object: AppObject
        let record = AppMembership(uuid: "u", channel: "c", status: "on", custom: ["big": .number("12345678901234567890")],
                                   updated: 9)
        do {
            let store = try SQLiteObjectStore.file(path: path)
            object = try put(store, .channel, id: "c", fields: ["name": "N", "description": "d"], custom: ["k": .string("é\"\n")])
            _ = try store.applyMemberships(subscribeKey: "demo", set: [record], delete: [], maxPerObject: 10, maxPerKeyset: 100)
        }
        let reopened = try SQLiteObjectStore.file(path: path)
        XCTAssertEqual(try reopened.object(.channel, subscribeKey: "demo", id: "c"), object)
        XCTAssertEqual(try reopened.memberships(subscribeKey: "demo", uuid: nil, channel: "c"), [record])
    }

    func testTwoPostgresStoresOnOneDatabaseSeeEachOtherAndAStaleChangeIsRecomputed() throws {
        guard let database = try PostgresSubject.database(self) else { throw XCTSkip("PostgreSQL is not installed") }
        let first = PostgresObjectStore(database: database), second = PostgresObjectStore(database: database)
        let object = try put(first, .channel, id: "c", fields: ["name": "N"], custom: ["k": .string("é\"\n"), "n": .number("1.50")])
        XCTAssertEqual(try second.object(.channel, subscribeKey: "demo", id: "c"), object, "read back exactly")
        // The change sees the stored version; another store replaces it before the first write lands.
        var seen: [String?] = []
        let updated = try first.update(.channel, subscribeKey: "demo", id: "c", maxObjects: 10) { existing throws(PubNodeError) in
            seen.append(existing?.fields["name"])
            if seen.count == 1 { _ = try? self.put(second, .channel, id: "c", fields: ["name": "Other"]) }
            var next = AppObject(kind: .channel, id: "c", fields: ["name": (existing?.fields["name"] ?? "") + "+"], updated: 2)
            next.custom = existing?.custom
            return next
        }
        XCTAssertEqual(seen, ["N", "Other"], "the change was recomputed on the version actually replaced")
        XCTAssertEqual(updated.fields["name"], "Other+")
        XCTAssertEqual(try second.object(.channel, subscribeKey: "demo", id: "c")?.fields["name"], "Other+")
        _ = try put(second, .channel, id: "d", max: 2)
        XCTAssertThrowsError(try put(first, .channel, id: "e", max: 2), "the bound counts what every store wrote")
    }

    func testANodeDeletingAKeysetPurgesItsObjects() async throws {
        let store = MemoryObjectStore()
        let node = Node(adminToken: "0123456789abcdef", objects: store)
        let created = try await node.administerKeysets(KeysetAdminRequest(action: .create(KeysetSpec(subscribeKey: "sub-x")),
                                                                          credential: "0123456789abcdef"))
        guard case .keyset = created else { return XCTFail("\(created)") }
        _ = try put(store, key: "sub-x", id: "u")
        _ = try await node.administerKeysets(KeysetAdminRequest(action: .delete(subscribeKey: "sub-x"), credential: "0123456789abcdef"))
        XCTAssertNil(try store.object(.uuid, subscribeKey: "sub-x", id: "u"))
    }
}
