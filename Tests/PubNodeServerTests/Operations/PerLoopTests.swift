import NIOEmbedded
@testable import PubNodeServer
import XCTest

/// Values kept per event loop: one per loop, made once, and every loop's visited by readers.
final class PerLoopTests: XCTestCase {
    func testEachLoopGetsOneValueOfItsOwnMadeOnce() {
        let made = LoopCount()
        let perLoop = PerLoop { _ in
            made.add(1)
            return LoopCount()
        }
        let first = EmbeddedEventLoop(), second = EmbeddedEventLoop()
        XCTAssertTrue(perLoop.value(for: first) === perLoop.value(for: first))
        XCTAssertFalse(perLoop.value(for: first) === perLoop.value(for: second))
        XCTAssertEqual(made.value, 2)
        XCTAssertEqual(perLoop.all.count, 2)
    }

    func testTheParkedGaugeSumsTheLoopsCounts() {
        let gauges = ServerGauges()
        let first = EmbeddedEventLoop(), second = EmbeddedEventLoop()
        gauges.parkedPolls(on: first).add(2)
        gauges.parkedPolls(on: second).add(1)
        gauges.parkedPolls(on: first).add(-1)
        XCTAssertEqual(gauges.parkedPolls, 2)
        XCTAssertEqual(gauges.parkedPolls(on: first).value, 1)
    }
}
