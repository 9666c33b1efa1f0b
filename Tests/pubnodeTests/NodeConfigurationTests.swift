import Foundation
import PubNodeCore
@testable import pubnode
import XCTest

final class NodeConfigurationTests: XCTestCase {
    func testDefaultsServeDemoOnLoopback8090() throws {
        let configuration = NodeConfiguration()
        XCTAssertEqual(configuration.host, "127.0.0.1")
        XCTAssertEqual(configuration.port, 8090)
        XCTAssertEqual(configuration.keysets, [.demo])
        XCTAssertEqual(configuration.limits.bufferSize, 100)
        XCTAssertEqual(configuration.limits.maxSignalBytes, 30)
        XCTAssertEqual(configuration.limits.longPollTimeoutSeconds, 280)
        XCTAssertNoThrow(try configuration.validate())
    }

    func testEnvironmentOverridesFileAndFlagsOverrideEnvironment() throws {
        var configuration = NodeConfiguration()
        let file = #"{"port": 9000, "host": "0.0.0.0", "logLevel": "debug", "limits": {"bufferSize": 50, "maxSignalBytes": 64},"#
            + #" "keysets": [{"publishKey": "p1", "subscribeKey": "s1"}]}"#
        try configuration.apply(json: Data(file.utf8))
        XCTAssertEqual(configuration.port, 9000)
        XCTAssertEqual(configuration.limits.bufferSize, 50)
        XCTAssertEqual(configuration.keysets, [Keyset(publishKey: "p1", subscribeKey: "s1")])
        try configuration.apply(environment: ["PUBNODE_PORT": "9100", "PUBNODE_BUFFER_SIZE": "70",
                                              "PUBNODE_KEYSETS": "a:b,c:d", "UNRELATED": "x"])
        XCTAssertEqual(configuration.port, 9100)
        XCTAssertEqual(configuration.limits.bufferSize, 70)
        XCTAssertEqual(configuration.limits.maxSignalBytes, 64)
        XCTAssertEqual(configuration.keysets.map(\.subscribeKey), ["b", "d"])
        try configuration.set("port", "9200")
        XCTAssertEqual(configuration.port, 9200)
        XCTAssertEqual(configuration.host, "0.0.0.0")
    }

    func testEveryLimitHasAnEnvironmentVariable() {
        let names = Set(NodeConfiguration.settings.map(\.environment))
        for name in ["PUBNODE_BUFFER_SIZE", "PUBNODE_MAX_MESSAGE_BYTES", "PUBNODE_MAX_SIGNAL_BYTES",
                     "PUBNODE_LONG_POLL_TIMEOUT_SECONDS", "PUBNODE_MAX_CHANNELS_PER_GROUP", "PUBNODE_LOG_LEVEL",
                     "PUBNODE_DATA_DIR", "PUBNODE_HOST", "PUBNODE_PORT"] {
            XCTAssertTrue(names.contains(name), name)
        }
    }

    func testBadValuesAreReportedClearly() {
        var configuration = NodeConfiguration()
        XCTAssertThrowsError(try configuration.set("port", "70000")) { XCTAssertTrue("\($0)".contains("port")) }
        XCTAssertThrowsError(try configuration.set("nope", "1")) { XCTAssertTrue("\($0)".contains("unknown setting")) }
        XCTAssertThrowsError(try configuration.set("logLevel", "loud"))
        XCTAssertThrowsError(try configuration.set("keysets", "missingcolon"))
        XCTAssertThrowsError(try configuration.apply(json: Data("[1]".utf8)))
        XCTAssertThrowsError(try configuration.apply(json: Data("{".utf8)))
        XCTAssertThrowsError(try configuration.apply(fileAt: "/nonexistent/pubnode.json"))
        var idle = NodeConfiguration()
        idle.limits.idleConnectionSeconds = idle.limits.longPollTimeoutSeconds
        XCTAssertThrowsError(try idle.validate()) { XCTAssertTrue("\($0)".contains("idleConnectionSeconds")) }
        configuration.limits.bufferSize = 0
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("bufferSize")) }
    }
}
