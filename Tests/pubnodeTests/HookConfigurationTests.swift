import Foundation
import PubNodeCore
@testable import pubnode
import XCTest

final class HookConfigurationTests: XCTestCase {
    func testHooksAreReadFromTheConfigFile() throws {
        var configuration = NodeConfiguration()
        try configuration.apply(json: Data(#"""
        {"hooks": [
            {"name": "moderate", "event": "before-publish", "subscribeKey": "demo", "channels": ["chat.*", "news"],
             "url": "https://hooks.example.com/moderate", "secret": "s3cret", "timeoutMs": 250, "policy": "fail-open"},
            {"name": "audit", "event": "after-publish", "subscribeKey": "demo", "channels": "*",
             "url": "http://127.0.0.1:9000/audit", "maxAttempts": 3, "retryBaseMs": 100, "retryMaxMs": 2000,
             "capacity": 500, "concurrency": 2, "deadLetterCapacity": 50, "maxBatch": 25,
             "maxSpilledEvents": 20000},
            {"name": "echo", "event": "on-request", "subscribeKey": "demo", "path": "/tools/echo", "url": "http://127.0.0.1:9000/echo"}
         ],
         "hookAllowList": ["hooks.example.com", "127.0.0.1"],
         "adminToken": "0123456789abcdef0123"}
        """#.utf8))
        try configuration.validate()
        XCTAssertEqual(configuration.hooks.map(\.name), ["moderate", "audit", "echo"])
        let moderate = configuration.hooks[0]
        XCTAssertEqual(moderate.trigger, .beforePublish)
        XCTAssertEqual(moderate.channels, ["chat.*", "news"])
        XCTAssertEqual(moderate.secret, "s3cret")
        XCTAssertEqual(moderate.timeoutMilliseconds, 250)
        XCTAssertEqual(moderate.policy, .failOpen)
        let audit = configuration.hooks[1]
        XCTAssertEqual(audit.channels, ["*"])
        XCTAssertEqual(audit.policy, .failClosed, "fail-closed is the default")
        XCTAssertEqual(audit.delivery.maxAttempts, 3)
        XCTAssertEqual(audit.delivery.baseDelay, .milliseconds(100))
        XCTAssertEqual(audit.delivery.maxDelay, .seconds(2))
        XCTAssertEqual(audit.delivery.capacity, 500)
        XCTAssertEqual(audit.delivery.concurrency, 2)
        XCTAssertEqual(audit.delivery.deadLetterCapacity, 50)
        XCTAssertEqual(audit.delivery.maxBatch, 25)
        XCTAssertEqual(audit.delivery.maxSpilledEvents, 20000)
        XCTAssertEqual(moderate.delivery.maxSpilledEvents, 1_000_000, "the default budget")
        XCTAssertEqual(configuration.hooks[2].channels, ["tools/echo"])
        XCTAssertEqual(configuration.hookAllowList, ["hooks.example.com", "127.0.0.1"])
        XCTAssertEqual(configuration.adminToken, "0123456789abcdef0123")
    }

    func testTheDeployExampleIsAValidConfiguration() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Deploy/pubnode.example.json").standardized.path
        var configuration = NodeConfiguration()
        try configuration.apply(fileAt: path)
        try configuration.validate()
        XCTAssertEqual(configuration.hooks.map(\.name), ["moderate", "audit"])
        XCTAssertEqual(configuration.hooks[1].delivery.maxBatch, 50)
        XCTAssertEqual(configuration.hookAllowList, ["hooks.example.com"])
    }

    func testEnvironmentSetsTheAllowListAndAdminToken() throws {
        var configuration = NodeConfiguration()
        try configuration.apply(environment: ["PUBNODE_HOOK_ALLOW_LIST": "a.example, *.b.example",
                                              "PUBNODE_ADMIN_TOKEN": "abcdefghijklmnopq"])
        XCTAssertEqual(configuration.hookAllowList, ["a.example", "*.b.example"])
        XCTAssertEqual(configuration.adminToken, "abcdefghijklmnopq")
        XCTAssertThrowsError(try configuration.set("adminToken", "short")) { XCTAssertTrue("\($0)".contains("16")) }
    }

    func testBadHooksAreRefusedWithTheirName() {
        let cases: [(String, String)] = [
            (#"{"name":"h","event":"on-publish","subscribeKey":"demo","channels":["a"],"url":"http://x/"}"#, "event must be one of"),
            (#"{"name":"h","event":"after-publish","subscribeKey":"demo","channels":["a"]}"#, "url is required"),
            (#"{"name":"h","event":"after-publish","subscribeKey":"demo","url":"http://x/"}"#, "channels"),
            (#"{"name":"h","event":"on-request","subscribeKey":"demo","url":"http://x/"}"#, "path"),
            (#"{"name":"h","event":"before-publish","subscribeKey":"demo","channels":["a"],"url":"http://x/","policy":"maybe"}"#, "policy"),
            (#"{"name":"h","event":"after-publish","subscribeKey":"demo","channels":["a"],"url":"http://x/","timeoutMs":0}"#, "timeoutMs"),
            (#"{"name":"h","event":"after-publish","subscribeKey":"demo","channels":["a"],"url":"http://x/","colour":1}"#, "unknown setting 'colour'"),
            (#"{"event":"after-publish","subscribeKey":"demo","channels":["a"],"url":"http://x/"}"#, "needs a name"),
        ]
        for (hook, expected) in cases {
            var configuration = NodeConfiguration()
            XCTAssertThrowsError(try configuration.apply(json: Data(#"{"hooks":[\#(hook)]}"#.utf8)), hook) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(hook): \(error)")
            }
        }
        var configuration = NodeConfiguration()
        XCTAssertNoThrow(try configuration.apply(json: Data(#"{"hooks":[{"name":"h","event":"after-publish","subscribeKey":"elsewhere","channels":["a"],"url":"http://x/"}]}"#.utf8)))
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("not a configured keyset"), "\($0)") }
    }
}
