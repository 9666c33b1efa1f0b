import NIOHTTP1
import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// App Context endpoints through the production router: shapes, includes, eTags, paging, errors.
final class ObjectEndpointTests: XCTestCase {
    private let router = Router(node: Node())
    private let isoPattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#

    func testSetGetRemoveUUIDMetadata() async throws {
        let body = #"{"name":"Ann","email":"ann@example.com","externalId":null,"custom":{"a":1,"b":"x","c":true},"status":"on","type":"admin","unknown":[1]}"#
        let set = try await router.objects(.PATCH, "/v2/objects/demo/uuids/u1?include=custom,status,type", body: body)
        XCTAssertEqual(set.status, 200, set.text)
        XCTAssertEqual(set.json["status"], .number("200"))
        let data = try XCTUnwrap(set.json["data"])
        XCTAssertEqual(data.keys, ["id", "name", "externalId", "profileUrl", "email", "type", "status", "custom", "updated", "eTag"])
        XCTAssertEqual(data["id"], .string("u1"))
        XCTAssertEqual(data["name"], .string("Ann"))
        XCTAssertEqual(data["externalId"], .null)
        XCTAssertEqual(data["custom"], .object(["a": .number("1"), "b": .string("x"), "c": .bool(true)]))
        XCTAssertEqual(data["status"], .string("on"))
        XCTAssertNotNil(data["updated"]?.stringValue?.range(of: isoPattern, options: .regularExpression), set.text)
        XCTAssertFalse(data["eTag"]?.stringValue?.isEmpty ?? true)

        let plain = try await router.objects(.GET, "/v2/objects/demo/uuids/u1")
        XCTAssertEqual(plain.json["data"]?.keys, ["id", "name", "externalId", "profileUrl", "email", "updated", "eTag"])
        XCTAssertEqual(plain.json["data"]?["eTag"], data["eTag"])

        let partial = try await router.objects(.PATCH, "/v2/objects/demo/uuids/u1?include=custom", body: #"{"email":null}"#)
        XCTAssertEqual(partial.json["data"]?["name"], .string("Ann"), "a field the body leaves out is kept")
        XCTAssertEqual(partial.json["data"]?["email"], .null, "null clears a field")
        XCTAssertEqual(partial.json["data"]?["custom"], data["custom"], "custom is kept unless given")

        let removed = try await router.objects(.DELETE, "/v2/objects/demo/uuids/u1")
        XCTAssertEqual(removed.text, #"{"status":200,"data":null}"#)
        let missing = try await router.objects(.GET, "/v2/objects/demo/uuids/u1")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.text, #"{"status":404,"error":{"message":"Requested object was not found.","source":"objects"}}"#)
    }

    func testChannelMetadataAndETags() async throws {
        let first = try await router.objects(.PATCH, "/v2/objects/demo/channels/room", body: #"{"name":"Room","description":"d"}"#)
        XCTAssertEqual(first.json["data"]?.keys, ["id", "name", "description", "updated", "eTag"])
        let tag = try XCTUnwrap(first.json["data"]?["eTag"]?.stringValue)
        let same = try await router.objects(.PATCH, "/v2/objects/demo/channels/room", body: #"{"name":"Room"}"#)
        XCTAssertEqual(same.json["data"]?["eTag"]?.stringValue, tag, "the same content keeps its eTag")
        let changed = try await router.objects(.PATCH, "/v2/objects/demo/channels/room", body: #"{"name":"Hall"}"#,
                                               headers: ["if-match": tag])
        XCTAssertEqual(changed.status, 200)
        let newTag = try XCTUnwrap(changed.json["data"]?["eTag"]?.stringValue)
        XCTAssertNotEqual(newTag, tag)
        let stale = try await router.objects(.PATCH, "/v2/objects/demo/channels/room", body: #"{"name":"Stale"}"#,
                                             headers: ["if-match": tag])
        XCTAssertEqual(stale.status, 412)
        XCTAssertEqual(stale.text, #"{"status":412,"error":{"message":"Object already changed by another request since last retrieval.","source":"objects"}}"#)
        let kept = try await router.objects(.GET, "/v2/objects/demo/channels/room")
        XCTAssertEqual(kept.json["data"]?["name"], .string("Hall"), "a refused set changes nothing")
        let absent = try await router.objects(.PATCH, "/v2/objects/demo/channels/none", body: "{}", headers: ["if-match": tag])
        XCTAssertEqual(absent.status, 412, "If-Match on a missing object fails")
    }

    func testListsPageStablySortAndCount() async throws {
        for (index, name) in ["delta", "alpha", "echo", "bravo", "charlie"].enumerated() {
            _ = try await router.objects(.PATCH, "/v2/objects/demo/channels/c\(index)", body: #"{"name":"\#(name)"}"#)
        }
        let first = try await router.objects(.GET, "/v2/objects/demo/channels?limit=2&count=true")
        XCTAssertEqual(first.json["data"]?.arrayValue.map { $0["id"]?.stringValue }, ["c0", "c1"])
        XCTAssertEqual(first.json["totalCount"], .number("5"))
        XCTAssertNil(first.json["prev"])
        let next = try XCTUnwrap(first.json["next"]?.stringValue)
        XCTAssertNil(next.rangeOfCharacter(from: CharacterSet(charactersIn: "+/=&?% ")), "cursors are URL-safe")
        _ = try await router.objects(.PATCH, "/v2/objects/demo/channels/c1a", body: "{}")
        _ = try await router.objects(.DELETE, "/v2/objects/demo/channels/c0")
        let second = try await router.objects(.GET, "/v2/objects/demo/channels?limit=2&start=\(next)")
        XCTAssertEqual(second.json["data"]?.arrayValue.map { $0["id"]?.stringValue }, ["c1a", "c2"],
                       "the next page continues after the last item seen, whatever changed before it")
        XCTAssertNil(second.json["totalCount"])
        let prev = try XCTUnwrap(second.json["prev"]?.stringValue)
        let back = try await router.objects(.GET, "/v2/objects/demo/channels?limit=2&end=\(prev)")
        XCTAssertEqual(back.json["data"]?.arrayValue.map { $0["id"]?.stringValue }, ["c1"])
        let sorted = try await router.objects(.GET, "/v2/objects/demo/channels?sort=name:desc&include=totalCount")
        XCTAssertEqual(sorted.json["data"]?.arrayValue.map { $0["name"]?.stringValue ?? "-" },
                       ["echo", "charlie", "bravo", "alpha", "-"], "names descending, the unnamed last")
        XCTAssertEqual(sorted.json["totalCount"], .number("5"))
        let last = try await router.objects(.GET, "/v2/objects/demo/channels?limit=2&start=\(try XCTUnwrap(second.json["next"]?.stringValue))")
        XCTAssertEqual(last.json["data"]?.arrayValue.map { $0["id"]?.stringValue }, ["c3", "c4"])
        XCTAssertNil(last.json["next"], "no next page after the last item")
    }

    func testMembershipsAndMembersAreOneRecord() async throws {
        _ = try await router.objects(.PATCH, "/v2/objects/demo/channels/ch1", body: #"{"name":"One","custom":{"k":"v"}}"#)
        let body = #"{"set":[{"channel":{"id":"ch1"},"custom":{"role":"admin"},"status":"active"},{"channel":{"id":"ch2"}}],"delete":[]}"#
        let set = try await router.objects(.PATCH, "/v2/objects/demo/uuids/u1/channels?include=custom,status,channel.custom",
                                           body: body)
        XCTAssertEqual(set.status, 200, set.text)
        let items = set.json["data"]?.arrayValue ?? []
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(items[0]["channel"]?["name"], .string("One"))
        XCTAssertEqual(items[0]["channel"]?["custom"], .object(["k": .string("v")]))
        XCTAssertEqual(items[0]["custom"], .object(["role": .string("admin")]))
        XCTAssertEqual(items[0]["status"], .string("active"))
        XCTAssertEqual(items[1]["channel"], .object(["id": .string("ch2")]), "a channel without metadata is its id")
        XCTAssertEqual(items[1]["custom"], .null)

        let members = try await router.objects(.GET, "/v2/objects/demo/channels/ch1/uuids?include=custom")
        let member = try XCTUnwrap(members.json["data"]?[0])
        XCTAssertEqual(member["uuid"], .object(["id": .string("u1")]))
        XCTAssertEqual(member["custom"], .object(["role": .string("admin")]))
        XCTAssertEqual(member["eTag"], items[0]["eTag"], "the member is the membership seen from the channel")
        XCTAssertEqual(member.keys, ["uuid", "custom", "updated", "eTag"])

        let removed = try await router.objects(.PATCH, "/v2/objects/demo/channels/ch1/uuids",
                                               body: #"{"delete":[{"uuid":{"id":"u1"}}]}"#)
        XCTAssertEqual(removed.json["data"], .array([]))
        let left = try await router.objects(.GET, "/v2/objects/demo/uuids/u1/channels?count=true")
        XCTAssertEqual(left.json["data"]?.arrayValue.map { $0["channel"]?["id"]?.stringValue }, ["ch2"])
        XCTAssertEqual(left.json["totalCount"], .number("1"))
        let bySort = try await router.objects(.GET, "/v2/objects/demo/uuids/u1/channels?sort=channel.id:desc")
        XCTAssertEqual(bySort.status, 200)
    }

    func testBadInputIsRefusedInTheObjectsShape() async throws {
        let long = String(repeating: "x", count: 93)
        let bigCustom = "{" + (0..<300).map { #""k\#($0)":"0123456789abcdef""# }.joined(separator: ",") + "}"
        let cases: [(HTTPMethod, String, String?, Int, String)] = [
            (.PATCH, "/v2/objects/demo/uuids/u", "not json", 400, "must be a JSON object"),
            (.PATCH, "/v2/objects/demo/uuids/u", "[1]", 400, "must be a JSON object"),
            (.PATCH, "/v2/objects/demo/uuids/u", nil, 400, "must be a JSON object"),
            (.PATCH, "/v2/objects/demo/uuids/u", #"{"custom":{"a":{"b":1}}}"#, 400, "custom is flat"),
            (.PATCH, "/v2/objects/demo/uuids/u", #"{"custom":{"a":[1]}}"#, 400, "custom is flat"),
            (.PATCH, "/v2/objects/demo/uuids/u", #"{"custom":"x"}"#, 400, "custom must be an object"),
            (.PATCH, "/v2/objects/demo/uuids/u", #"{"custom":\#(bigCustom)}"#, 400, "custom is larger than 4096 bytes"),
            (.PATCH, "/v2/objects/demo/uuids/u", #"{"name":5}"#, 400, "name must be a string or null"),
            (.PATCH, "/v2/objects/demo/uuids/u", #"{"name":"  "}"#, 400, "name must not be empty"),
            (.PATCH, "/v2/objects/demo/uuids/u", #"{"status":"\#(long)"}"#, 400, "status is longer than 50"),
            (.PATCH, "/v2/objects/demo/uuids/\(long)", "{}", 400, "1 to 92 bytes"),
            (.GET, "/v2/objects/demo/channels/a:b", nil, 400, "forbidden character"),
            (.GET, "/v2/objects/demo/uuids?include=everything", nil, 400, "include: unknown value"),
            (.GET, "/v2/objects/demo/uuids?limit=101", nil, 400, "limit must be between 1 and 100"),
            (.GET, "/v2/objects/demo/uuids?sort=email", nil, 400, "sort: unknown key"),
            (.GET, "/v2/objects/demo/uuids?sort=id:up", nil, 400, "direction must be asc or desc"),
            (.GET, "/v2/objects/demo/uuids?start=zz", nil, 400, "not a page cursor"),
            (.GET, "/v2/objects/demo/uuids?start=n&end=n", nil, 400, "give start or end"),
            (.PATCH, "/v2/objects/demo/uuids/u/channels", #"{"set":[{"channel":"c"}]}"#, 400, "needs channel.id"),
            (.PATCH, "/v2/objects/demo/uuids/u/channels", #"{"set":{}}"#, 400, "set must be an array"),
            (.GET, "/v2/objects/nope/uuids/u", nil, 400, "Invalid Key"),
        ]
        for (method, uri, body, status, text) in cases {
            let answer = try await router.objects(method, uri, body: body)
            XCTAssertEqual(answer.status, status, uri)
            XCTAssertEqual(answer.json["status"], .number(String(status)), uri)
            XCTAssertEqual(answer.json["error"]?["source"], .string("objects"), "\(uri): \(answer.text)")
            XCTAssertTrue(answer.json["error"]?["message"]?.stringValue?.contains(text) ?? false, "\(uri): \(answer.text)")
        }
        let many = (0...100).map { #"{"channel":{"id":"c\#($0)"}}"# }.joined(separator: ",")
        let tooMany = try await router.objects(.PATCH, "/v2/objects/demo/uuids/u/channels", body: #"{"set":[\#(many)]}"#)
        XCTAssertEqual(tooMany.status, 400, tooMany.text)
        let unknown = try await router.objects(.GET, "/v2/objects/demo/spaces")
        XCTAssertEqual(unknown.status, 404)
    }

    func testKeysetLimitsBoundObjectsAndMemberships() async throws {
        var limits = Limits()
        limits.maxObjectsPerKeyset = 2
        limits.maxMembershipsPerObject = 2
        let router = Router(node: Node(limits: limits))
        for id in ["a", "b"] { _ = try await router.objects(.PATCH, "/v2/objects/demo/uuids/\(id)", body: "{}") }
        let third = try await router.objects(.PATCH, "/v2/objects/demo/uuids/c", body: "{}")
        XCTAssertEqual(third.status, 400, third.text)
        let again = try await router.objects(.PATCH, "/v2/objects/demo/uuids/a", body: #"{"name":"A"}"#)
        XCTAssertEqual(again.status, 200, "an existing object may still change")
        let body = #"{"set":[{"channel":{"id":"x"}},{"channel":{"id":"y"}},{"channel":{"id":"z"}}]}"#
        let full = try await router.objects(.PATCH, "/v2/objects/demo/uuids/a/channels", body: body)
        XCTAssertEqual(full.status, 400, full.text)
        let none = try await router.objects(.GET, "/v2/objects/demo/uuids/a/channels")
        XCTAssertEqual(none.json["data"], .array([]), "a refused change stores nothing")
    }
}
