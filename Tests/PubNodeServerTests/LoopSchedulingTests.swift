import NIOCore
import NIOPosix
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// The event-loop threads run under the scheduling policy the configuration names.
final class LoopSchedulingTests: XCTestCase {
    func testAutomaticIsBatchOnlyWithMoreThanOneLoop() {
        XCTAssertEqual(LoopScheduling.automatic.resolved(loops: 1), .normal)
        XCTAssertEqual(LoopScheduling.automatic.resolved(loops: 2), .batch)
        XCTAssertEqual(LoopScheduling.automatic.resolved(loops: 16), .batch)
        XCTAssertEqual(LoopScheduling.batch.resolved(loops: 1), .batch)
        XCTAssertEqual(LoopScheduling.normal.resolved(loops: 4), .normal)
    }

    func testTheServersLoopsRunUnderTheResolvedPolicy() async throws {
        #if !os(Linux)
        throw XCTSkip("scheduling policies are set on Linux only")
        #else
        for (threads, asked, expected) in [(2, LoopScheduling.automatic, LoopScheduling.batch),
                                           (1, .automatic, .normal), (2, .normal, .normal), (1, .batch, .batch)] {
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.eventLoopThreads = threads
            configuration.loopScheduling = asked
            let server = PubNodeHTTPServer(configuration: configuration, node: Node())
            _ = try await server.start()
            // The policy is each loop's first task, so a task submitted now runs after it.
            let policies = try await policies(of: server.group.makeIterator().map { $0 })
            XCTAssertEqual(policies, Array(repeating: expected, count: threads), "\(threads) loops, \(asked)")
            try await server.shutdown()
        }
        #endif
    }

    func testAPolicyIsSetBothWays() async throws {
        #if !os(Linux)
        throw XCTSkip("scheduling policies are set on Linux only")
        #else
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = group.makeIterator().map { $0 }
        let initial = try await policies(of: loops)
        XCTAssertEqual(initial, [.normal, .normal], "a new thread's default")
        try await LoopScheduling.batch.apply(to: loops).get()
        let batch = try await policies(of: loops)
        XCTAssertEqual(batch, [.batch, .batch])
        try await LoopScheduling.normal.apply(to: loops).get()
        let normal = try await policies(of: loops)
        XCTAssertEqual(normal, [.normal, .normal])
        try await group.shutdownGracefully()
        #endif
    }

    /// Each loop's thread's policy, read on that thread.
    private func policies(of loops: [any EventLoop]) async throws -> [LoopScheduling?] {
        var policies: [LoopScheduling?] = []
        for loop in loops {
            policies.append(try await loop.submit { LoopScheduling.currentThreadPolicy() }.get())
        }
        return policies
    }
}
