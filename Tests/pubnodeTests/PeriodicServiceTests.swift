import Logging
import PubNodeCore
import ServiceLifecycle
import Synchronization
import XCTest
@testable import pubnode

final class PeriodicServiceTests: XCTestCase {
    private let logger = Logger(label: "test")

    func testATickRunsWhenTheClockReachesTheInterval() async throws {
        let clock = ManualNodeClock()
        let (ticks, tick) = AsyncStream.makeStream(of: Int.self)
        let count = Atomic<Int>(0)
        let service = PeriodicService("test", every: .seconds(10), clock: clock) {
            tick.yield(count.add(1, ordering: .relaxed).newValue)
        }
        let group = ServiceGroup(services: [service], logger: logger)
        let running = Task { try await group.run() }
        var iterator = ticks.makeAsyncIterator()

        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(9))
        XCTAssertEqual(count.load(ordering: .relaxed), 0, "not due yet")
        XCTAssertEqual(clock.sleeperCount, 1)
        clock.advance(by: .seconds(1))
        let first = await iterator.next()
        XCTAssertEqual(first, 1)
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(10))
        let second = await iterator.next()
        XCTAssertEqual(second, 2)

        await clock.sleepers(atLeast: 1)
        await group.triggerGracefulShutdown()
        try await running.value
        XCTAssertEqual(clock.sleeperCount, 0, "the sleep ends with the service")
        XCTAssertEqual(count.load(ordering: .relaxed), 2)
    }

    func testATickStillRunningIsNotStartedAgain() async throws {
        let clock = ManualNodeClock()
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let gate = Gate()
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let runs = Atomic<Int>(0)
        let service = PeriodicService("test", every: .seconds(1), clock: clock) {
            let now = running.add(1, ordering: .relaxed).newValue
            most.max(now, ordering: .relaxed)
            runs.add(1, ordering: .relaxed)
            start.yield()
            await gate.wait()
            running.subtract(1, ordering: .relaxed)
        }
        let group = ServiceGroup(services: [service], logger: logger)
        let task = Task { try await group.run() }
        var iterator = started.makeAsyncIterator()

        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        _ = await iterator.next()
        for _ in 0..<5 { clock.advance(by: .seconds(1)) }
        XCTAssertEqual(clock.sleeperCount, 0, "no next tick is waiting while one runs")
        XCTAssertEqual(runs.load(ordering: .relaxed), 1)

        gate.open()
        await clock.sleepers(atLeast: 1)
        XCTAssertEqual(runs.load(ordering: .relaxed), 1, "ticks missed while running are not made up")
        clock.advance(by: .seconds(1))
        _ = await iterator.next()
        XCTAssertEqual(most.load(ordering: .relaxed), 1, "never two runs at once")

        await group.triggerGracefulShutdown()
        try await task.value
    }

    func testGracefulShutdownWaitsForTheTickInProgress() async throws {
        let clock = ManualNodeClock()
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let gate = Gate()
        let log = EventLog()
        let service = PeriodicService("test", every: .seconds(1), clock: clock) {
            start.yield()
            await gate.wait()
            log.record("tick ended")
        }
        let group = ServiceGroup(services: [service], logger: logger)
        let task = Task {
            try await group.run()
            log.record("group returned")
        }
        var iterator = started.makeAsyncIterator()
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        _ = await iterator.next()

        await group.triggerGracefulShutdown()
        gate.open()
        try await task.value
        XCTAssertEqual(log.all, ["tick ended", "group returned"])
        XCTAssertEqual(clock.sleeperCount, 0, "no tick after the shutdown")
    }
}
