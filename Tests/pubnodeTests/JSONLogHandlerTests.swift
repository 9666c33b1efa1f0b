import Foundation
import Logging
import Synchronization
import XCTest
@testable import pubnode

final class JSONLogHandlerTests: XCTestCase {
    /// Lines written to a sink, in order.
    private final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var sink: LineSink { LineSink { line in self.lines.withLock { $0.append(line) } } }
        var all: [String] { lines.withLock { $0 } }
    }

    private func object(_ line: String) throws -> [String: Any] {
        XCTAssertTrue(line.hasSuffix("\n"))
        XCTAssertEqual(line.filter { $0 == "\n" }.count, 1, "one record, one line: \(line)")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func testARecordWithMetadataQuotesAndNewlinesIsValidJSON() throws {
        let time = Date(timeIntervalSince1970: 1_795_456_317.123_9)
        let message = "said \"hi\"\nthen\tleft \\ \u{01} \u{2028} é 🎉"
        let line = JSONLogHandler.line(time: time, level: .warning, label: "pubnode.server", message: message,
                                       metadata: ["channel": "chat \"main\"\r\n", "count": "3",
                                                  "nested": ["a": ["1", "2"]], "level": "spoofed"],
                                       source: "PubNodeServer", error: "bad\nthing")
        let record = try object(line)
        XCTAssertEqual(record["ts"] as? String, "2026-11-23T17:51:57.123Z")
        XCTAssertEqual(record["level"] as? String, "warning")
        XCTAssertEqual(record["label"] as? String, "pubnode.server")
        XCTAssertEqual(record["message"] as? String, message)
        XCTAssertEqual(record["channel"] as? String, "chat \"main\"\r\n")
        XCTAssertEqual(record["count"] as? String, "3")
        XCTAssertEqual(record["nested"] as? String, Logger.MetadataValue.dictionary(["a": ["1", "2"]]).description)
        XCTAssertEqual(record["meta_level"] as? String, "spoofed", "metadata never replaces the record's fields")
        XCTAssertEqual(record["source"] as? String, "PubNodeServer")
        XCTAssertEqual(record["error"] as? String, "bad\nthing")
        XCTAssertTrue(line.hasPrefix(#"{"ts":"2026-11-23T17:51:57.123Z","level":"warning","label":"pubnode.server","message":"#),
                      line)
        XCTAssertTrue(line.hasSuffix(#","source":"PubNodeServer","error":"bad\nthing"}"# + "\n"), line)
    }

    func testLevelsMapToTheirNames() throws {
        let lines = Lines()
        var logger = Logger(label: "levels") { label in JSONLogHandler(label: label, sink: lines.sink, metadataProvider: nil) }
        logger.logLevel = .trace
        for level in Logger.Level.allCases { logger.log(level: level, "at \(level)") }
        let levels = try lines.all.map { try object($0)["level"] as? String }
        XCTAssertEqual(levels, ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        logger.logLevel = .error
        logger.warning("dropped")
        XCTAssertEqual(lines.all.count, 7, "records below the level are not written")
    }

    func testHandlerProviderAndRecordMetadataMerge() throws {
        let lines = Lines()
        let provider = Logger.MetadataProvider { ["request": "r1", "shared": "provider"] }
        var logger = Logger(label: "merge") { label in JSONLogHandler(label: label, sink: lines.sink, metadataProvider: provider) }
        logger[metadataKey: "node"] = "n1"
        logger[metadataKey: "shared"] = "handler"
        logger.info("hello", metadata: ["peer": "127.0.0.1"])
        logger.info("again", metadata: ["shared": "record"])
        let first = try object(lines.all[0]), second = try object(lines.all[1])
        XCTAssertEqual(first["node"] as? String, "n1")
        XCTAssertEqual(first["request"] as? String, "r1")
        XCTAssertEqual(first["peer"] as? String, "127.0.0.1")
        XCTAssertEqual(first["shared"] as? String, "provider")
        XCTAssertEqual(second["shared"] as? String, "record")
        XCTAssertEqual(first["label"] as? String, "merge")
        XCTAssertNotNil(first["source"] as? String)
    }

    func testTimestampsAreUTCWithMilliseconds() {
        XCTAssertEqual(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 951_782_400.5)), "2000-02-29T00:00:00.500Z")
        XCTAssertEqual(JSONLogHandler.timestamp(Date(timeIntervalSince1970: -0.25)), "1969-12-31T23:59:59.750Z")
    }

    func testTheLogFormatSettingAcceptsTextAndJSONOnly() throws {
        XCTAssertEqual(NodeConfiguration().logFormat, "text")
        var configuration = NodeConfiguration()
        try configuration.apply(flags: ["--log-format", "JSON"])
        XCTAssertEqual(configuration.logFormat, "json")
        try configuration.apply(environment: ["PUBNODE_LOG_FORMAT": "text"])
        XCTAssertEqual(configuration.logFormat, "text")
        try configuration.apply(json: Data(#"{"logFormat": "json"}"#.utf8))
        XCTAssertEqual(configuration.logFormat, "json")
        for bad in ["logfmt", "", "yaml"] {
            var refused = NodeConfiguration()
            XCTAssertThrowsError(try refused.apply(flags: ["--log-format", bad]), bad) { error in
                XCTAssertTrue("\(error)".contains("logFormat must be one of text, json"), "\(error)")
            }
        }
        XCTAssertThrowsError(try NodeConfiguration.resolve(file: nil, environment: ["PUBNODE_LOG_FORMAT": "xml"], flags: []))
        XCTAssertTrue(LogFormat.handler("json", label: "x", level: .debug) is JSONLogHandler)
        XCTAssertEqual(LogFormat.handler("json", label: "x", level: .debug).logLevel, .debug)
        XCTAssertTrue(LogFormat.handler("text", label: "x", level: .info) is StreamLogHandler)
    }

    func testLinesFromManyThreadsStayWhole() throws {
        let lines = Lines()
        let logger = Logger(label: "threads") { label in JSONLogHandler(label: label, sink: lines.sink, metadataProvider: nil) }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<200 { logger.info("thread \(thread) line \(index)", metadata: ["pad": "\(String(repeating: "x", count: 300))"]) }
        }
        XCTAssertEqual(lines.all.count, 1600)
        for line in lines.all { XCTAssertNotNil(try object(line)["message"]) }
    }

    func testStandardErrorLinesFromManyThreadsNeverInterleave() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let target = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(target, 0)
        let saved = dup(2)
        dup2(target, 2)
        let logger = Logger(label: "stderr") { label in JSONLogHandler(label: label, metadataProvider: nil) }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<100 {
                logger.info("thread \(thread) line \(index)", metadata: ["pad": "\(String(repeating: "y", count: 5000))"])
            }
        }
        dup2(saved, 2)
        close(saved)
        close(target)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 801, "800 lines and the empty text after the last newline")
        for line in lines.dropLast() { XCTAssertNotNil(try object(String(line) + "\n")["message"]) }
    }
}
