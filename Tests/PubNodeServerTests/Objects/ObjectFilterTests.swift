import Foundation
import NIOHTTP1
import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// App Context's `filter=`: the subscribe filters' language over each item as it is served.
final class ObjectFilterTests: XCTestCase {
    private let router = Router(node: Node())

    private func ids(_ uri: String, file: StaticString = #filePath, line: UInt = #line) async throws -> [String?] {
        let answer = try await router.objects(.GET, uri)
        XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
        return answer.json["data"]?.arrayValue.map { $0["id"]?.stringValue ?? $0["channel"]?["id"]?.stringValue } ?? []
    }

    private func query(_ filter: String) -> String {
        filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    func testFiltersSelectByFieldsCustomAndTimeBeforePaging() async throws {
        let people = [("ann", #"{"name":"Ann","status":"active","custom":{"team":"blue","level":3}}"#),
                      ("bob", #"{"name":"Bob","status":"away","custom":{"team":"red","level":7}}"#),
                      ("abe", #"{"name":"Abe","status":"active","custom":{"team":"blue","level":9}}"#)]
        for (id, body) in people {
            let set = try await router.objects(.PATCH, "/v2/objects/demo/uuids/\(id)", body: body)
            XCTAssertEqual(set.status, 200, set.text)
        }
        var found = try await ids("/v2/objects/demo/uuids?filter=\(query("name LIKE 'a*'"))")
        XCTAssertEqual(found, ["abe", "ann"])
        found = try await ids("/v2/objects/demo/uuids?filter=\(query("custom.team == 'blue' && custom.level > 5"))")
        XCTAssertEqual(found, ["abe"])
        found = try await ids("/v2/objects/demo/uuids?filter=\(query("!(status == 'active')"))")
        XCTAssertEqual(found, ["bob"])
        found = try await ids("/v2/objects/demo/uuids?filter=\(query("updated >= '2000-01-01T00:00:00.000Z'"))")
        XCTAssertEqual(found, ["abe", "ann", "bob"], "ISO times compare as strings")
        let paged = try await router.objects(.GET, "/v2/objects/demo/uuids?limit=1&count=true&filter=\(query("status == 'active'"))")
        XCTAssertEqual(paged.json["totalCount"], .number("2"), "the count is of matching items")
        XCTAssertEqual(paged.json["data"]?[0]?["id"], .string("abe"))
        XCTAssertNotNil(paged.json["next"])
    }

    func testMembershipFiltersReadTheJoinedSide() async throws {
        _ = try await router.objects(.PATCH, "/v2/objects/demo/channels/lobby", body: #"{"name":"Lobby room"}"#)
        _ = try await router.objects(.PATCH, "/v2/objects/demo/channels/ops", body: #"{"name":"Operations"}"#)
        let body = #"{"set":[{"channel":{"id":"lobby"}},{"channel":{"id":"ops"},"status":"admin"}]}"#
        let set = try await router.objects(.PATCH, "/v2/objects/demo/uuids/u1/channels", body: body)
        XCTAssertEqual(set.status, 200, set.text)
        var found = try await ids("/v2/objects/demo/uuids/u1/channels?filter=\(query("channel.name LIKE '*room*'"))")
        XCTAssertEqual(found, ["lobby"])
        found = try await ids("/v2/objects/demo/uuids/u1/channels?filter=\(query("status == 'admin'"))")
        XCTAssertEqual(found, ["ops"])
    }

    func testAMalformedFilterIsRefusedInTheObjectsShape() async throws {
        for bad in ["name ==", "((name == 'a')", "name LIKE", String(repeating: "(", count: 5_000) + "a" ] {
            let answer = try await router.objects(.GET, "/v2/objects/demo/uuids?filter=\(query(bad))")
            XCTAssertEqual(answer.status, 400, bad.prefix(30) + " " + answer.text)
            XCTAssertEqual(answer.json["error"]?["source"], .string("objects"))
            XCTAssertTrue(answer.json["error"]?["message"]?.stringValue?.contains("Invalid filter") == true, answer.text)
        }
    }
}
