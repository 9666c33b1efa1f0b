import ArgumentParser
import Foundation
import PubNodeCore
import XCTest
@testable import pubnode

final class SettingsTableTests: XCTestCase {
    /// A valid non-default text for each setting.
    private func sample(_ setting: Setting) -> String {
        switch setting.key {
        case "host": return "0.0.0.0"
        case "dataDir": return "/tmp/elsewhere"
        case "logLevel": return "debug"
        case "logFormat": return "json"
        case "keysets": return "p9:s9"
        case "hookAllowList": return "a.example"
        case "adminToken": return "0123456789abcdef"
        case "redis": return "redis://127.0.0.1:6390/0"
        case "historyEnabled", "historyStrict", "historyAcceptEmpty", "metrics", "limitPrivateAddresses", "appContextEvents": return setting.defaultText == "true" ? "false" : "true"
        case "metricsHost": return "0.0.0.0"
        case "eventLoopScheduling": return "normal"
        case "historyUrl": return "postgres://u@db.example:5432/h"
        default:
            let bounds = setting.allowed.components(separatedBy: "...").compactMap { Int($0) }
            let value = (Int(setting.defaultText) ?? 0) + 1
            return "\(min(value, bounds.last ?? value))"
        }
    }

    func testEverySettingIsDeclaredOnceWithAllItsNames() {
        let settings = NodeConfiguration.settings
        for names in [settings.map(\.key), settings.map(\.flag), settings.map(\.environment)] {
            XCTAssertEqual(Set(names).count, names.count, "no name is declared twice: \(names)")
        }
        for setting in settings {
            XCTAssertTrue(setting.environment.hasPrefix("PUBNODE_"), setting.environment)
            XCTAssertFalse(setting.help.isEmpty, setting.key)
            XCTAssertFalse(setting.allowed.isEmpty, setting.key)
        }
    }

    func testEverySettingIsReachableByFlagEnvironmentAndFile() throws {
        let defaults = NodeConfiguration()
        for setting in NodeConfiguration.settings {
            let value = sample(setting)
            var byFlag = NodeConfiguration()
            try byFlag.apply(flags: ["--\(setting.flag)", value])
            XCTAssertNotEqual(byFlag, defaults, "--\(setting.flag) \(value) changed nothing")
            var byEqualsFlag = NodeConfiguration()
            try byEqualsFlag.apply(flags: ["--\(setting.flag)=\(value)"])
            XCTAssertEqual(byEqualsFlag, byFlag, setting.flag)
            var byEnvironment = NodeConfiguration()
            try byEnvironment.apply(environment: [setting.environment: value])
            XCTAssertEqual(byEnvironment, byFlag, setting.environment)
            var byFile = NodeConfiguration()
            let fileValue: Any = setting.key == "keysets" ? [["publishKey": "p9", "subscribeKey": "s9"]] : value
            let json = try JSONSerialization.data(withJSONObject: [setting.key: fileValue])
            try byFile.apply(json: json)
            XCTAssertEqual(byFile, byFlag, "file key \(setting.key)")
            XCTAssertEqual(setting.render(byFlag), setting.key == "adminToken" ? "(set)" : value, setting.key)
        }
    }

    func testFlagsBeatEnvironmentWhichBeatsTheFileWhichBeatsDefaults() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-\(UUID().uuidString).json")
        try Data(#"{"port": 9000, "bufferSize": 50, "announceMax": 7, "host": "0.0.0.0"}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try NodeConfiguration.resolve(
            file: file.path, environment: ["PUBNODE_PORT": "9100", "PUBNODE_BUFFER_SIZE": "70"],
            flags: ["--port", "9200", "--keyset", "a:b", "--keyset=c:d"])
        XCTAssertEqual(configuration.port, 9200, "flag over environment")
        XCTAssertEqual(configuration.limits.bufferSize, 70, "environment over file")
        XCTAssertEqual(configuration.limits.announceMax, 7, "file over default")
        XCTAssertEqual(configuration.host, "0.0.0.0")
        XCTAssertEqual(configuration.limits.maxSignalBytes, 30, "default")
        XCTAssertEqual(configuration.keysets.map(\.subscribeKey), ["b", "d"], "a repeated flag accumulates")
    }

    func testTheCommandHandsEveryOtherArgumentToTheTable() throws {
        let command = try PubNodeCommand.parse(["--port", "9300", "--config", "/nonexistent.json", "--history-flush-ms=5",
                                                "--keyset", "a:b"])
        XCTAssertEqual(command.config, "/nonexistent.json")
        XCTAssertEqual(command.settings, ["--port", "9300", "--history-flush-ms=5", "--keyset", "a:b"])
        var configuration = NodeConfiguration()
        try configuration.apply(flags: command.settings)
        XCTAssertEqual(configuration.port, 9300)
        XCTAssertEqual(configuration.history.flushMilliseconds, 5)
    }

    func testOutOfRangeAndUnknownFlagsAreNamed() {
        var configuration = NodeConfiguration()
        XCTAssertThrowsError(try configuration.apply(flags: ["--port", "70000"])) {
            XCTAssertEqual("\($0)", "port must be an integer in 0...65535 (got '70000')")
        }
        XCTAssertThrowsError(try configuration.apply(flags: ["--long-poll-timeout", "-1"])) {
            XCTAssertEqual("\($0)", "longPollTimeoutSeconds must be an integer in 0...2147483647 (got '-1')")
        }
        XCTAssertThrowsError(try configuration.apply(flags: ["--history-flush-ms", "5000"])) {
            XCTAssertEqual("\($0)", "historyFlushMilliseconds must be an integer in 0...1000 (got '5000')")
        }
        XCTAssertThrowsError(try configuration.apply(environment: ["PUBNODE_HISTORY_STRICT": "maybe"])) {
            XCTAssertEqual("\($0)", "historyStrict must be true or false (got 'maybe')")
        }
        XCTAssertThrowsError(try configuration.apply(flags: ["--sweep-interval-seconds", "0"])) {
            XCTAssertTrue("\($0)".contains("sweepIntervalSeconds"), "\($0)")
        }
        XCTAssertThrowsError(try configuration.apply(flags: ["--event-loop-scheduling", "fifo"])) {
            XCTAssertEqual("\($0)", "eventLoopScheduling must be one of automatic, batch, normal (got 'fifo')")
        }
        XCTAssertThrowsError(try configuration.apply(flags: ["--colour", "blue"])) {
            XCTAssertEqual("\($0)", "unknown option '--colour'")
        }
        XCTAssertThrowsError(try configuration.apply(flags: ["--port"])) {
            XCTAssertEqual("\($0)", "missing value for '--port'")
        }
        XCTAssertThrowsError(try configuration.apply(flags: ["stray"])) {
            XCTAssertEqual("\($0)", "unexpected argument 'stray'")
        }
        XCTAssertThrowsError(try NodeConfiguration.resolve(file: nil, environment: [:],
                                                           flags: ["--buffer-size", "0"])) {
            XCTAssertEqual("\($0)", "bufferSize must be positive (got 0)")
        }
    }

    func testHelpListsEverySettingWithItsDefault() {
        let help = PubNodeCommand.helpMessage(columns: 80)
        let words = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for setting in NodeConfiguration.settings {
            XCTAssertTrue(help.contains("--\(setting.flag) "), "--\(setting.flag) in help")
            XCTAssertTrue(help.contains(setting.environment), setting.environment)
            XCTAssertTrue(help.contains("file: \(setting.key)"), setting.key)
            XCTAssertTrue(words.contains(setting.help), setting.help)
        }
        XCTAssertTrue(help.contains("--config"))
        XCTAssertTrue(words.contains("Default: 8090."))
        XCTAssertTrue(words.contains("Default: demo:demo."))
        for line in help.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    func testTheConfigurationDocumentHoldsTheGeneratedTable() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Docs/configuration.md").standardized
        let table = NodeConfiguration.settingsMarkdown
        var document = try String(contentsOf: path, encoding: .utf8)
        let begin = "<!-- settings table: generated from NodeConfiguration.settings -->\n"
        let end = "\n<!-- end of settings table -->"
        guard let start = document.range(of: begin), let stop = document.range(of: end) else {
            return XCTFail("Docs/configuration.md lacks the settings table markers")
        }
        if ProcessInfo.processInfo.environment["PUBNODE_WRITE_DOCS"] == "1" {
            document.replaceSubrange(start.upperBound..<stop.lowerBound, with: table)
            try document.write(to: path, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(String(document[start.upperBound..<stop.lowerBound]), table,
                       "regenerate with PUBNODE_WRITE_DOCS=1 swift test --filter SettingsTableTests")
    }
}
