#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// The event-loop threads run under the scheduling policy the configuration names.
///
/// A new thread inherits its creator's policy, so each test first puts the thread it creates loops
/// from under the default policy (the test's own thread may have been started by a batch loop).
final class LoopSchedulingTests: XCTestCase {
    func testAutomaticIsBatchOnlyWithMoreThanOneLoop() {
        XCTAssertEqual(LoopScheduling.automatic.resolved(loops: 1), .normal)
        XCTAssertEqual(LoopScheduling.automatic.resolved(loops: 2), .batch)
        XCTAssertEqual(LoopScheduling.automatic.resolved(loops: 16), .batch)
        XCTAssertEqual(LoopScheduling.batch.resolved(loops: 1), .batch)
        XCTAssertEqual(LoopScheduling.normal.resolved(loops: 4), .normal)
    }

    func testTheServersLoopsRunUnderTheResolvedPolicy() async throws {
        #if !canImport(Glibc)
        throw XCTSkip("scheduling policies are set on Linux only")
        #else
        for (threads, asked, expected) in [(2, LoopScheduling.automatic, LoopScheduling.batch),
                                           (1, .automatic, .normal), (2, .normal, .normal), (1, .batch, .batch)] {
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.eventLoopThreads = threads
            configuration.loopScheduling = asked
            try Self.setCurrentThreadPolicy(0)
            let server = PubNodeHTTPServer(configuration: configuration, node: Node())
            _ = try await server.start()
            // The policy is each loop's first task, so a task submitted now runs after it.
            let policies = try await Self.policies(of: server.group)
            XCTAssertEqual(policies, Array(repeating: expected, count: threads), "\(threads) loops, \(asked)")
            try await server.shutdown()
        }
        #endif
    }

    func testNormalLeavesBatchAndBatchLeavesAnyOtherPolicy() async throws {
        #if !canImport(Glibc)
        throw XCTSkip("scheduling policies are set on Linux only")
        #else
        try Self.setCurrentThreadPolicy(0)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let initial = try await Self.policies(of: group)
        XCTAssertEqual(initial, [.normal, .normal], "threads started from a thread under the default policy")
        try await LoopScheduling.batch.apply(to: group).get()
        let batch = try await Self.policies(of: group)
        XCTAssertEqual(batch, [.batch, .batch])
        try await LoopScheduling.normal.apply(to: group).get()
        let kept = try await Self.policies(of: group)
        XCTAssertEqual(kept, [.batch, .batch], "normal changes nothing")
        try await group.shutdownGracefully()

        // A policy chosen on purpose (here SCHED_IDLE, which needs no privilege) is not replaced.
        try Self.setCurrentThreadPolicy(0)
        let idleGroup = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        for loop in idleGroup.makeIterator() { try await loop.submit { try Self.setCurrentThreadPolicy(5) }.get() }
        try await LoopScheduling.batch.apply(to: idleGroup).get()
        for loop in idleGroup.makeIterator() {
            let policy = try await loop.submit { sched_getscheduler(0) }.get()
            XCTAssertEqual(policy, 5, "SCHED_IDLE is kept")
        }
        try await idleGroup.shutdownGracefully()
        #endif
    }

    /// Each loop's thread's policy, read on that thread.
    private static func policies(of group: any EventLoopGroup) async throws -> [LoopScheduling?] {
        var policies: [LoopScheduling?] = []
        for loop in group.makeIterator() {
            policies.append(try await loop.submit { LoopScheduling.currentThreadPolicy() }.get())
        }
        return policies
    }

    #if canImport(Glibc)
    /// Puts the calling thread under `policy` (0 `SCHED_OTHER`, 5 `SCHED_IDLE`).
    private static func setCurrentThreadPolicy(_ policy: Int32) throws {
        var parameters = sched_param()
        parameters.sched_priority = 0
        guard sched_setscheduler(0, policy, &parameters) == 0 else {
            throw LoopSchedulingError(policy: .normal, errno: errno)
        }
    }
    #endif
}
