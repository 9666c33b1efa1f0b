import Foundation
import NIOCore
import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Per-keyset token buckets: publishes and requests beyond the rate get 429 with `Retry-After`,
/// refill with the (manual) clock, and are counted in the tenants API.
final class KeysetRateLimitTests: XCTestCase {
    private let admin = ["authorization": "Bearer \(AccessFixture.adminToken)"]

    private func reply(_ router: Router, _ target: String, _ method: HTTPMethod = .GET, body: String? = nil,
                       headers: [String: String] = [:]) async throws -> HTTPReply {
        var request = try PubNubRequest(method: method, uri: target, body: body.map { ByteBuffer(string: $0) })
        request.headers = headers
        let answer = await router.answer(request)
        return try XCTUnwrap(answer, "no answer to \(target)")
    }

    func testPublishesBeyondTheKeysetsRateAreRefusedUntilTheBucketRefills() async throws {
        let clock = ManualClock()
        let limited = Keyset(publishKey: "p", subscribeKey: "s", rateLimits: RateLimits(publishesPerSecond: 2))
        let node = Node(keysets: [limited, .demo], clock: TimetokenClock(wall: clock),
                        keysetRateLimits: RateLimits(requestsPerSecond: 1000))
        let router = Router(node: node)
        for _ in 0..<2 {
            let sent = try await reply(router, "/publish/p/s/0/c/0/1")
            XCTAssertEqual(sent.status, .ok)
        }
        let refused = try await reply(router, "/publish/p/s/0/c/0/1")
        XCTAssertEqual(refused.status, .tooManyRequests)
        XCTAssertEqual(refused.retryAfter, 1)
        XCTAssertEqual(String(buffer: refused.body), #"{"status":429,"error":true,"message":"Too many requests.","service":"Rate Limiter"}"#)
        let subscribe = try await reply(router, "/v2/subscribe/s/c/0?tt=0")
        XCTAssertEqual(subscribe.status, .ok, "only publishes are limited to 2/s here")
        let demo = try await reply(router, "/publish/demo/demo/0/c/0/1")
        XCTAssertEqual(demo.status, .ok, "another keyset has its own buckets")
        let time = try await reply(router, "/time/0")
        XCTAssertEqual(time.status, .ok)
        clock.advance(by: .milliseconds(500))
        let refilled = try await reply(router, "/publish/p/s/0/c/0/1")
        XCTAssertEqual(refilled.status, .ok, "half a second brings one token back")
        let limiter = try XCTUnwrap(node.registry.keyset("s")?.publishLimiter)
        XCTAssertEqual(limiter.admitted, 3)
        XCTAssertEqual(limiter.refused, 1)
    }

    func testRequestLimitsComeFromTheNodeUnlessTheKeysetSetsItsOwn() async throws {
        let clock = ManualClock()
        let node = Node(keysets: [.demo, Keyset(publishKey: "p", subscribeKey: "s", rateLimits: RateLimits(requestsPerSecond: 5))],
                        clock: TimetokenClock(wall: clock), keysetRateLimits: RateLimits(requestsPerSecond: 3))
        let router = Router(node: node)
        var statuses: [UInt] = []
        for _ in 0..<4 { statuses.append(try await reply(router, "/v2/presence/sub-key/demo/channel/c").status.code) }
        XCTAssertEqual(statuses, [200, 200, 200, 429])
        statuses = []
        for _ in 0..<6 { statuses.append(try await reply(router, "/v2/presence/sub-key/s/channel/c").status.code) }
        XCTAssertEqual(statuses, [200, 200, 200, 200, 200, 429])
    }

    func testATenantsLimitsAreSetAtCreationCountedAndKept() async throws {
        let fixture = try AccessFixture()
        let created = try await fixture.call("/v1/admin/keysets", .POST,
                                             body: Array(#"{"accessManager":false,"rateLimits":{"publishesPerSecond":1}}"#.utf8),
                                             headers: admin)
        XCTAssertEqual(created.status, 200, created.body)
        let keyset = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])?["keyset"]
            as? [String: Any])
        let (pub, sub) = (try XCTUnwrap(keyset["publishKey"] as? String), try XCTUnwrap(keyset["subscribeKey"] as? String))
        let first = try await fixture.call("/publish/\(pub)/\(sub)/0/c/0/1")
        XCTAssertEqual(first.status, 200)
        let second = try await fixture.call("/publish/\(pub)/\(sub)/0/c/0/1")
        XCTAssertEqual(second.status, 429)
        let list = try await fixture.call("/v1/admin/keysets", headers: admin)
        XCTAssertTrue(list.body.contains(#""rateLimits":{"publishesPerSecond":1},"counters":{"admitted":1,"refused":1,"publishes":{"perSecond":1,"admitted":1,"refused":1}}"#),
                      list.body)
        let restarted = try fixture.restarted()
        _ = try await restarted.call("/publish/\(pub)/\(sub)/0/c/0/1")
        let again = try await restarted.call("/publish/\(pub)/\(sub)/0/c/0/1")
        XCTAssertEqual(again.status, 429, "the limit was kept with the keyset")
        let bad = try await fixture.call("/v1/admin/keysets", .POST, body: Array(#"{"rateLimits":{"publishesPerSecond":"fast"}}"#.utf8),
                                         headers: admin)
        XCTAssertEqual(bad.status, 400)
        let negative = try await fixture.call("/v1/admin/keysets", .POST, body: Array(#"{"rateLimits":{"requestsPerSecond":-1}}"#.utf8),
                                              headers: admin)
        XCTAssertEqual(negative.status, 400)
    }
}
