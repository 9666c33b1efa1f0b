import Foundation
import PubNodeCore
import XCTest
@testable import pubnode

final class NodeRuntimeTests: XCTestCase {
    func testWithoutSettingsTheNodeServesDemoOnLoopback8090WithHistoryInPubnodeData() throws {
        let configuration = try NodeConfiguration.resolve(file: nil, environment: [:], flags: [])
        XCTAssertEqual(configuration.server.host, "127.0.0.1")
        XCTAssertEqual(configuration.server.port, 8090)
        XCTAssertEqual(configuration.keysets, [.demo])
        XCTAssertEqual(configuration.historyDatabasePath, "./pubnode-data/history.sqlite")
        XCTAssertTrue(configuration.history.policy(for: "demo").enabled)
        XCTAssertEqual(configuration.sweepIntervalSeconds, 10)
    }
}
