import Foundation
import PubNodeCore
@testable import pubnode
import XCTest

/// App Context events: off unless the node-wide setting or a keyset entry of the file turns them on.
final class AppContextEventSettingsTests: XCTestCase {
    private func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return "\(error)" }
        return "no error"
    }

    func testOffByDefaultAndTheNodeWideSettingAppliesToEveryConfiguredKeyset() throws {
        XCTAssertEqual(try NodeConfiguration.resolve(file: nil, environment: [:], flags: []).keysets.map(\.appContextEvents),
                       [false], "the demo keyset announces nothing by default")
        let demo = try NodeConfiguration.resolve(file: nil, environment: [:], flags: ["--app-context-events", "true"])
        XCTAssertEqual(demo.keysets.map(\.appContextEvents), [true], "the default demo keyset follows the setting")
        for flags in [["--app-context-events", "true", "--keyset", "a:b", "--keyset", "c:d:sec"],
                      ["--keyset", "a:b", "--keyset", "c:d:sec", "--app-context-events=true"]] {
            let configuration = try NodeConfiguration.resolve(file: nil, environment: [:], flags: flags)
            XCTAssertEqual(configuration.keysets.map(\.appContextEvents), [true, true], "in any order: \(flags)")
        }
        let byEnvironment = try NodeConfiguration.resolve(
            file: nil, environment: ["PUBNODE_APP_CONTEXT_EVENTS": "true", "PUBNODE_KEYSETS": "a:b"], flags: [])
        XCTAssertEqual(byEnvironment.keysets.map(\.appContextEvents), [true])
        let overridden = try NodeConfiguration.resolve(
            file: nil, environment: ["PUBNODE_APP_CONTEXT_EVENTS": "true"], flags: ["--app-context-events", "false"])
        XCTAssertEqual(overridden.keysets.map(\.appContextEvents), [false], "a flag beats the environment")
    }

    func testAKeysetEntryOverridesTheNodeWideSetting() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-\(UUID().uuidString).json")
        try Data(#"""
            {"appContextEvents": true,
             "keysets": [{"publishKey": "p1", "subscribeKey": "s1"},
                         {"publishKey": "p2", "subscribeKey": "s2", "appContextEvents": false},
                         {"publishKey": "p3", "subscribeKey": "s3", "appContextEvents": true}]}
            """#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try NodeConfiguration.resolve(file: file.path, environment: [:], flags: [])
        XCTAssertEqual(fromFile.keysets.map(\.appContextEvents), [true, false, true])
        let nodeWideOff = try NodeConfiguration.resolve(file: file.path, environment: [:],
                                                        flags: ["--app-context-events", "false"])
        XCTAssertEqual(nodeWideOff.keysets.map(\.appContextEvents), [false, false, true],
                       "an entry's own value wins over the node-wide setting from any source")
    }

    func testANonBooleanIsRefusedWithAClearMessage() {
        var configuration = NodeConfiguration()
        XCTAssertEqual(message { try configuration.apply(flags: ["--app-context-events", "maybe"]) },
                       "appContextEvents must be true or false (got 'maybe')")
        XCTAssertEqual(message { try configuration.apply(environment: ["PUBNODE_APP_CONTEXT_EVENTS": "2"]) },
                       "appContextEvents must be true or false (got '2')")
        for value in [#""yes""#, "1", "0", "null", #"{"a":1}"#] {
            let text = #"{"keysets": [{"publishKey": "p", "subscribeKey": "s", "appContextEvents": \#(value)}]}"#
            let refused = message { try configuration.apply(json: Data(text.utf8)) }
            XCTAssertTrue(refused.hasPrefix("keyset s: appContextEvents must be true or false"), "\(value): \(refused)")
        }
        XCTAssertEqual(configuration.keysets, [.demo], "a refused value changes nothing")
    }
}
