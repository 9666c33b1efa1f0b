import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// App Context calls of `PubNodeClient` against a real node.
final class AppContextNodeTests: XCTestCase {
    func testMetadataETagsFiltersAndMemberships() async throws {
        let node = try await TestNode.start()
        let client = node.client(userId: "ann")
        let stored = try await client.setUUIDMetadata(UUIDMetadata(id: "ann", name: "Ann", status: "active",
                                                                   custom: ["team": "blue"]))
        XCTAssertEqual(stored.name, "Ann")
        let etag = try XCTUnwrap(stored.eTag)
        try await client.setUUIDMetadata(UUIDMetadata(id: "bob", name: "Bob", custom: ["team": "red"]))
        let fetched = try await client.fetchUUIDMetadata()
        XCTAssertEqual(fetched.custom, ["team": "blue"])
        XCTAssertEqual(fetched.eTag, etag)

        let renamed = try await client.setUUIDMetadata(UUIDMetadata(id: "ann", name: "Anne"), ifMatchesEtag: etag)
        XCTAssertNotEqual(renamed.eTag, etag)
        do {
            try await client.setUUIDMetadata(UUIDMetadata(id: "ann", name: "Stale"), ifMatchesEtag: etag)
            XCTFail("a stale eTag must be refused")
        } catch {
            XCTAssertEqual(error.status, 412)
        }

        let blue = try await client.allUUIDMetadata(ObjectsListOptions(include: [.custom, .totalCount],
                                                                       filter: "custom.team == 'blue'"))
        XCTAssertEqual(blue.items.map(\.id), ["ann"])
        XCTAssertEqual(blue.totalCount, 1)

        try await client.setMemberships(channels: [Membership(uuid: "ann", channel: "lobby"),
                                                   Membership(uuid: "ann", channel: "ops")])
        let memberships = try await client.fetchMemberships()
        XCTAssertEqual(memberships.items.map(\.channel), ["lobby", "ops"])
        let members = try await client.fetchMembers(channel: "ops")
        XCTAssertEqual(members.items.map(\.uuid), ["ann"])
        try await client.removeMemberships(channels: ["lobby"])
        let left = try await client.fetchMemberships()
        XCTAssertEqual(left.items.map(\.channel), ["ops"])

        let removed = try await client.removeUUIDMetadata()
        XCTAssertEqual(removed, "ann")
        do {
            _ = try await client.fetchUUIDMetadata()
            XCTFail("removed metadata is not found")
        } catch {
            XCTAssertEqual(error.status, 404)
        }
        try await node.shutdown()
    }
}
