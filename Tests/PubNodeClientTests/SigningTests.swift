import Foundation
import PubNodeAccessWire
@testable import PubNodeClient
import PubNodeTestSupport
import XCTest

/// Signed requests against the Python SDK's vectors (wire notes §1.2) and the node's verifier.
final class SigningTests: XCTestCase {
    static let vectorTime: Double = 1_700_000_000

    /// The notes' keys and uuid, with the Python SDK's `pnsdk` so its vectors apply.
    func vectorClient(_ transport: any PubNodeTransport, clock: Double = vectorTime) -> PubNodeClient {
        let configuration = PubNodeConfiguration(
            publishKey: "pub-c-test", subscribeKey: "sub-c-test", userId: "my-uuid", secretKey: "sec-c-test",
            sdkName: "PubNub-Python/10.4.0")
        return PubNodeClient(configuration: configuration, transport: transport, sleeper: ManualClock(),
                             wallClock: { clock })
    }

    static func ok(_ body: String) -> TransportResponse { TransportResponse(status: 200, body: Data(body.utf8)) }

    func query(_ request: TransportRequest) -> [String: String] {
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// What the node's verifier says about `request` at the vector time.
    func verify(_ request: TransportRequest, now: UInt64 = 1_700_000_000) -> SignatureCheck {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
        return RequestSignature.verify(
            method: request.method, path: components.percentEncodedPath, rawQuery: components.percentEncodedQuery ?? "",
            body: request.body.map { Array($0) }, publishKey: "pub-c-test", subscribeKey: "sub-c-test",
            secret: "sec-c-test", now: now)
    }

    func testTimeRequestCarriesTheVectorSignature() async throws {
        let transport = AnsweringTransport { _ in Self.ok("[17000000000000000]") }
        let client = vectorClient(transport)
        _ = try await client.time()
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.url.path, "/time/0")
        XCTAssertEqual(request.url.query,
                       "uuid=my-uuid&pnsdk=PubNub-Python%2F10.4.0&timestamp=1700000000"
                       + "&signature=v2.j8w7_0nfni1-sG37T2tuglfy49_oz0wJsJSZnmQv3oU")
        XCTAssertEqual(verify(request), .valid)
        XCTAssertEqual(verify(request, now: 1_700_000_061), .stale)
    }

    func testGrantSendsTheSDKBodyAndSignature() async throws {
        let transport = AnsweringTransport { _ in
            Self.ok(#"{"data":{"message":"Success","token":"qEF2AkF0GmEI03xDdHRsGDxD"},"service":"Access Manager","status":200}"#)
        }
        let client = vectorClient(transport)
        let token = try await client.grantToken(
            ttl: 60, authorizedUUID: "my-uuid",
            resources: TokenResources(channels: ["ch1": [.read, .write]], groups: ["g1": [.read, .manage]],
                                      uuids: ["u1": [.get, .update]]),
            patterns: TokenResources(channels: ["^ch-.*$": .read]),
            meta: ["role": "admin"])
        XCTAssertEqual(token, "qEF2AkF0GmEI03xDdHRsGDxD")
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.url.path, "/v3/pam/sub-c-test/grant")
        XCTAssertEqual(request.headers["Content-Type"], "application/json")
        XCTAssertEqual(String(decoding: request.body ?? Data(), as: UTF8.self), """
            {"ttl": 60, "permissions": {"resources": {"channels": {"ch1": 3}, "groups": {"g1": 5}, "uuids": {"u1": 96}, \
            "users": {"u1": 96}, "spaces": {"ch1": 3}}, "patterns": {"channels": {"^ch-.*$": 1}, "groups": {}, \
            "uuids": {}, "users": {}, "spaces": {"^ch-.*$": 1}}, "meta": {"role": "admin"}, "uuid": "my-uuid"}}
            """)
        XCTAssertEqual(query(request)["signature"], "v2.wBC_JsFVNy8ZkdDgIynuwOxJaNfu5HYRmhh7n-nbbu8")
        XCTAssertNil(query(request)["auth"])
        XCTAssertEqual(verify(request), .valid)
    }

    func testGrantWithoutMetaOrUUIDSendsAnEmptyMetaAndNoUUID() {
        let body = PubNodeClient.grantBody(ttl: 5, authorizedUUID: nil, resources: TokenResources(groups: ["g é": .read]),
                                           patterns: TokenResources(), meta: nil)
        XCTAssertEqual(body, #"{"ttl": 5, "permissions": {"resources": {"channels": {}, "groups": {"g \u00e9": 1}, "#
            + #""uuids": {}, "users": {}, "spaces": {}}, "patterns": {"channels": {}, "groups": {}, "uuids": {}, "#
            + #""users": {}, "spaces": {}}, "meta": {}}}"#)
    }

    func testGrantRefusalsAndMissingSecret() async throws {
        let transport = AnsweringTransport { _ in
            TransportResponse(status: 400, body: Data(#"{"error":{"message":"Invalid ttl","source":"grant","details":[{"message":"Range should be 1 to 43200 minute(s).","location":"ttl","locationType":"body"}]},"service":"Access Manager","status":400}"#.utf8))
        }
        do {
            _ = try await vectorClient(transport).grantToken(ttl: 50_000, resources: TokenResources(channels: ["a": .read]))
            XCTFail("a 400 should throw")
        } catch {
            XCTAssertEqual(error, .server(status: 400, message: "Invalid ttl"))
        }
        let unsigned = PubNodeClient(configuration: PubNodeConfiguration(subscribeKey: "s", userId: "u"), transport: transport)
        do {
            _ = try await unsigned.grantToken(ttl: 5, resources: TokenResources(channels: ["a": .read]))
            XCTFail("granting without a secret key should throw")
        } catch {
            XCTAssertEqual(error.status, nil)
            XCTAssertEqual(transport.requests.count, 1, "nothing sent without the secret key")
        }
    }

    func testRevokeDeletesTheEncodedTokenSigned() async throws {
        let transport = AnsweringTransport { _ in
            Self.ok(#"{"data":{"message":"Success"},"service":"Access Manager","status":200}"#)
        }
        try await vectorClient(transport).revokeToken("ab+c/d==")
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.method, "DELETE")
        XCTAssertEqual(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath,
                       "/v3/pam/sub-c-test/grant/ab%2Bc%2Fd%3D%3D")
        XCTAssertTrue(query(request)["signature"]?.hasPrefix("v2.") ?? false)
        XCTAssertEqual(verify(request), .valid)
    }

    func testEveryRequestIsSignedWithTheCurrentTokenAndPostPublishAsGet() async throws {
        let transport = AnsweringTransport { request in
            request.url.path.hasPrefix("/publish") ? Self.ok(#"[1,"Sent","17000000000000001"]"#)
                : Self.ok(#"{"status":200,"message":"OK","service":"Presence","payload":{"channels":[]}}"#)
        }
        let client = vectorClient(transport)
        client.set(token: "tok en+=")
        try await client.publish(channel: "ch 1", message: ["a": "b"] as JSONValue, meta: ["x": 1] as JSONValue,
                                 shouldCompress: true)
        try await client.publish(channel: "ch1", message: "hi")
        _ = try? await client.whereNow(uuid: "someone")
        XCTAssertEqual(transport.requests.count, 3)
        for request in transport.requests {
            XCTAssertEqual(query(request)["auth"], "tok en+=")
            XCTAssertEqual(query(request)["timestamp"], "1700000000")
            XCTAssertEqual(verify(request), .valid, "\(request.method) \(request.url)")
        }
        let post = transport.requests[0]
        XCTAssertEqual(post.method, "POST")
        let expected = RequestSignature.v2(
            secret: "sec-c-test", method: "GET", publishKey: "pub-c-test",
            path: URLComponents(url: post.url, resolvingAgainstBaseURL: false)!.percentEncodedPath,
            canonicalQuery: RequestSignature.canonicalQuery(
                query(post).filter { $0.key != "signature" }.map { ($0.key, $0.value) }),
            body: nil)
        XCTAssertEqual(query(post)["signature"], expected)
    }

    func testUnsignedClientsSendNoSignature() async throws {
        let transport = AnsweringTransport { _ in Self.ok("[17000000000000000]") }
        let client = PubNodeClient(configuration: PubNodeConfiguration(subscribeKey: "s", userId: "u", authToken: "t"),
                                   transport: transport)
        _ = try await client.time()
        let items = query(try XCTUnwrap(transport.requests.first))
        XCTAssertEqual(items["auth"], "t")
        XCTAssertNil(items["signature"])
        XCTAssertNil(items["timestamp"])
    }
}
