import XCTest
@testable import PubNodeAccessWire

final class RequestSignatureTests: XCTestCase {
    let pub = "pub-c-test"
    let sub = "sub-c-test"
    let secret = "sec-c-test"
    let now: UInt64 = 1_700_000_000
    let sdkQuery = "pnsdk=PubNub-Python%2F10.4.0&timestamp=1700000000&uuid=my-uuid"
    let grantBody = """
        {"ttl": 60, "permissions": {"resources": {"channels": {"ch1": 3}, "groups": {"g1": 5}, "uuids": {"u1": 96}, \
        "users": {"u1": 96}, "spaces": {"ch1": 3}}, "patterns": {"channels": {"^ch-.*$": 1}, "groups": {}, "uuids": {}, \
        "users": {}, "spaces": {"^ch-.*$": 1}}, "meta": {"role": "admin"}, "uuid": "my-uuid"}}
        """

    func check(_ method: String, _ path: String, _ query: String, body: String? = nil, now: UInt64? = nil,
               secret: String? = nil) -> SignatureCheck {
        RequestSignature.verify(
            method: method, path: path, rawQuery: query, body: body.map { Array($0.utf8) }, publishKey: pub,
            subscribeKey: sub, secret: secret ?? self.secret, now: now ?? self.now)
    }

    func testPamEncodeMatchesPythonSDK() {
        XCTAssertEqual(RequestSignature.pamEncode("PubNub-Python/10.4.0"), "PubNub-Python%2F10.4.0")
        XCTAssertEqual(RequestSignature.pamEncode("a b+c*!'()[]~_.-"), "a%20b%2Bc%2A%21%27%28%29%5B%5D%7E_.-")
        XCTAssertEqual(RequestSignature.pamEncode("é%"), "%C3%A9%25")
        XCTAssertEqual(RequestSignature.pamEncode("g%201"), "g%25201")
    }

    func testCanonicalQuerySortsCaseSensitively() {
        let query = RequestSignature.canonicalQuery([("uuid", "my-uuid"), ("b", "x y"), ("B", "1"), ("a", "~")])
        XCTAssertEqual(query, "B=1&a=%7E&b=x%20y&uuid=my-uuid")
    }

    func testVectorTimeGET() {
        XCTAssertEqual(
            RequestSignature.v2(secret: secret, method: "GET", publishKey: pub, path: "/time/0",
                                canonicalQuery: sdkQuery, body: nil),
            "v2.j8w7_0nfni1-sG37T2tuglfy49_oz0wJsJSZnmQv3oU")
        let raw = "pnsdk=PubNub-Python%2F10.4.0&uuid=my-uuid&timestamp=1700000000&signature=v2.j8w7_0nfni1-sG37T2tuglfy49_oz0wJsJSZnmQv3oU"
        XCTAssertEqual(check("GET", "/time/0", raw), .valid)
        XCTAssertEqual(check("GET", "/time/1", raw), .mismatch)
        XCTAssertEqual(check("GET", "/time/0", raw.replacingOccurrences(of: "j8w7", with: "j8w8")), .mismatch)
        XCTAssertEqual(check("GET", "/time/0", raw, secret: "sec-c-other"), .mismatch)
        XCTAssertEqual(check("GET", "/time/0", raw, now: now + 61), .stale)
        XCTAssertEqual(check("GET", "/time/0", raw, now: now - 61), .stale)
        XCTAssertEqual(check("GET", "/time/0", raw, now: now + 60), .valid)
        XCTAssertEqual(check("GET", "/time/0", raw.replacingOccurrences(of: "&timestamp=1700000000", with: "")), .missing)
        XCTAssertEqual(check("GET", "/time/0", "pnsdk=PubNub-Python%2F10.4.0&uuid=my-uuid&timestamp=1700000000"), .missing)
        XCTAssertEqual(check("GET", "/time/0", raw + "&uuid=my-uuid"), .mismatch, "duplicate key")
        XCTAssertEqual(check("GET", "/time/0", raw + "&x=1"), .mismatch, "extra parameter")
        XCTAssertEqual(check("GET", "/time/0", raw + "=="), .valid, "padding-insensitive")
        XCTAssertEqual(check("GET", "/time/0", raw.replacingOccurrences(of: "1700000000", with: "17e8")), .mismatch)
    }

    func testVectorGrantPOSTWithBody() {
        XCTAssertEqual(
            RequestSignature.v2(secret: secret, method: "POST", publishKey: pub, path: "/v3/pam/sub-c-test/grant",
                                canonicalQuery: sdkQuery, body: Array(grantBody.utf8)),
            "v2.wBC_JsFVNy8ZkdDgIynuwOxJaNfu5HYRmhh7n-nbbu8")
        let raw = "pnsdk=PubNub-Python%2F10.4.0&signature=v2.wBC_JsFVNy8ZkdDgIynuwOxJaNfu5HYRmhh7n-nbbu8&timestamp=1700000000&uuid=my-uuid"
        XCTAssertEqual(check("POST", "/v3/pam/sub-c-test/grant", raw, body: grantBody), .valid)
        XCTAssertEqual(check("POST", "/v3/pam/sub-c-test/grant", raw, body: grantBody + " "), .mismatch)
        XCTAssertEqual(check("POST", "/v3/pam/sub-c-test/grant", raw, body: nil), .mismatch)
        XCTAssertEqual(check("GET", "/v3/pam/sub-c-test/grant", raw, body: grantBody), .mismatch)
    }

    func testVectorPublishV1() {
        XCTAssertEqual(
            RequestSignature.v1(secret: secret, subscribeKey: sub, publishKey: pub,
                                path: "/publish/pub-c-test/sub-c-test/0/ch1/0", canonicalQuery: sdkQuery),
            "tuyvzlOc884MOcZLdPvfXBu1dD5wOcjuRBLJLJKcuVU=")
        let path = "/publish/pub-c-test/sub-c-test/0/ch1/0"
        let raw = "pnsdk=PubNub-Python%2F10.4.0&uuid=my-uuid&timestamp=1700000000&signature=tuyvzlOc884MOcZLdPvfXBu1dD5wOcjuRBLJLJKcuVU="
        XCTAssertEqual(check("POST", path, raw, body: #"{"a": "b"}"#), .valid)
        XCTAssertEqual(check("POST", path, raw.replacingOccurrences(of: "=tuyv", with: "=tuyw"), body: #"{"a": "b"}"#), .mismatch)
        XCTAssertEqual(check("POST", path, raw.replacingOccurrences(of: "VuU=", with: "VuU%3D"), body: #"{"a": "b"}"#), .valid)
        XCTAssertEqual(check("POST", path, raw.replacingOccurrences(of: "VuU=", with: "VuU"), body: #"{"a": "b"}"#), .valid)
        XCTAssertEqual(check("POST", path, raw, secret: "nope"), .mismatch)
    }

    func testJavaScriptStylePublishIsV2GETWithoutBody() {
        let path = "/publish/pub-c-test/sub-c-test/0/ch1/0"
        let signature = RequestSignature.v2(secret: secret, method: "GET", publishKey: pub, path: path,
                                            canonicalQuery: sdkQuery, body: nil)
        let raw = "uuid=my-uuid&pnsdk=PubNub-Python%2F10.4.0&timestamp=1700000000&signature=" + signature
        XCTAssertEqual(check("POST", path, raw, body: #"{"a": "b"}"#), .valid)
        XCTAssertEqual(check("POST", "/v1/files/x", raw, body: #"{"a": "b"}"#), .mismatch)
    }

    // Requests captured from pubnub 10.8.0 with `timestamp` patched to 1700000000 (notes §1.3).
    func testSubscribeWithDoubleEncodedGroupAndFilter() {
        let path = "/v2/subscribe/sub-c-test/ch%201/0"
        let raw = "channel-group=g%201&filter-expr=uuid%20%21%3D%20%27me%27&pnsdk=PubNub-Python%2F10.4.0&uuid=my-uuid&timestamp=1700000000&signature=v2.lLkjuoLE8NglEV2SUOXiNutf1UnD3rU3Ekgv7TBS4gg"
        XCTAssertEqual(check("GET", path, raw), .valid)
        XCTAssertEqual(check("GET", path, raw.replacingOccurrences(of: "%27me%27", with: "%27mf%27")), .mismatch)
        XCTAssertEqual(check("GET", "/v2/subscribe/sub-c-test/ch%202/0", raw), .mismatch)
    }

    func testSetStateWithDoubleEncodedGroupAndDecodedState() {
        let path = "/v2/presence/sub-key/sub-c-test/channel/ch1/uuid/my-uuid/data"
        let raw = "state=%7B%22mood%22%3A%20%22a%20b%22%7D&channel-group=g%201&pnsdk=PubNub-Python%2F10.4.0&uuid=my-uuid&timestamp=1700000000&signature=v2.2etslEAhtPdQTH66jphOwsGPMggTMjpr05Pznba8A9M"
        XCTAssertEqual(check("GET", path, raw), .valid)
        XCTAssertEqual(check("GET", path, raw.replacingOccurrences(of: "g%201", with: "g%202")), .mismatch)
    }

    func testPublishCustomMessageTypeV1() {
        let path = "/publish/pub-c-test/sub-c-test/0/ch1/0"
        let raw = "custom_message_type=my-type&pnsdk=PubNub-Python%2F10.4.0&uuid=my-uuid&timestamp=1700000000&signature=5Jl9vwKI0BVK2FX3VbcRcux5d4Yzbj81D-Zy7FRKIgE="
        XCTAssertEqual(check("POST", path, raw, body: #"{"a": "b"}"#), .valid)
        XCTAssertEqual(check("POST", path, raw.replacingOccurrences(of: "my-type", with: "my-typf")), .mismatch)
    }

    func testPlusIsNotSpaceAndOverlongQueryIsRejected() {
        let signature = RequestSignature.v2(
            secret: secret, method: "GET", publishKey: pub, path: "/x",
            canonicalQuery: RequestSignature.canonicalQuery([("auth", "a+b=="), ("timestamp", "1700000000")]), body: nil)
        XCTAssertEqual(check("GET", "/x", "auth=a+b==&timestamp=1700000000&signature=" + signature), .valid)
        XCTAssertEqual(check("GET", "/x", "auth=a%2Bb%3D%3D&timestamp=1700000000&signature=" + signature), .valid)
        XCTAssertEqual(check("GET", "/x", "auth=a%20b==&timestamp=1700000000&signature=" + signature), .mismatch)
        let long = "auth=" + String(repeating: "a", count: RequestSignature.maxQueryLength) + "&timestamp=1700000000&signature=" + signature
        XCTAssertEqual(check("GET", "/x", long), .mismatch)
    }
}
