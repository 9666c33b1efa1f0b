import Foundation
import NIOCore
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// A node with an admin token, metrics on and the console's files, wired to in-memory
/// connections carrying the production pipeline, on a manual clock.
struct OperationsFixture {
    static let adminToken = "admin-token-0123456789"
    static let bearer = ["Authorization": "Bearer \(adminToken)"]

    let clock = ManualClock()
    let operations: Operations
    let embedded: EmbeddedNode

    init(keysets: [Keyset] = [.demo], limits: Limits = Limits(), metrics: ServerMetrics? = ServerMetrics(),
         console: ConsoleAssets? = ConsoleAssets(files: ["index.html": .init(body: .init(string: "<!doctype html>"),
                                                                               contentType: "text/html; charset=utf-8")]),
         metricsListener: Bool = false) {
        operations = Operations(metrics: metrics, console: console,
                                startedAtMilliseconds: Int64(clock.nowNanoseconds() / 1_000_000))
        embedded = EmbeddedNode(keysets: keysets, limits: limits, wall: clock, adminToken: Self.adminToken,
                                operations: operations, metricsListener: metricsListener)
    }

    var node: Node { embedded.node }

    /// `/metrics` as samples: `name{labels}` → value (answered off the event loop, so routed directly).
    func metrics(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Double] {
        var request = try PubNubRequest(method: .GET, uri: "/metrics")
        request.headers["authorization"] = Self.bearer["Authorization"]
        let reply = try XCTUnwrap(embedded.router.answerWaiting(request), file: file, line: line)
        XCTAssertEqual(reply.status.code, 200, String(buffer: reply.body), file: file, line: line)
        XCTAssertEqual(reply.contentType, "text/plain; version=0.0.4; charset=utf-8", file: file, line: line)
        return Self.samples(String(buffer: reply.body))
    }

    /// `/v1/admin/stats` as JSON.
    func stats(_ query: String = "", file: StaticString = #filePath, line: UInt = #line) throws -> JSON {
        var request = try PubNubRequest(method: .GET, uri: "/v1/admin/stats\(query)")
        request.headers["authorization"] = Self.bearer["Authorization"]
        let reply = try XCTUnwrap(embedded.router.answerWaiting(request), file: file, line: line)
        XCTAssertEqual(reply.status.code, 200, String(buffer: reply.body), file: file, line: line)
        return JSON.parse(Array(reply.body.readableBytesView))
    }

    /// The samples of a Prometheus text exposition.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}

extension JSON {
    /// The number as an integer.
    var int: Int? { stringValue.flatMap { Int($0) } }
    /// The number as a double.
    var double: Double? { stringValue.flatMap { Double($0) } }
}
