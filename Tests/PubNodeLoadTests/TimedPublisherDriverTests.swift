import NIOCore
import XCTest

@testable import pubnode_load

/// The fan-out publisher keeps one schedule however many connections share it.
final class TimedPublisherDriverTests: XCTestCase {
    /// Message 0 is due at this instant (nanoseconds).
    private let start: UInt64 = 1_000_000_000
    /// The schedule's interval, in nanoseconds.
    private let interval: UInt64 = 200_000_000

    /// Lane `lane` of `lanes` over a 10-message schedule, 200 ms apart.
    private func lane(_ lane: Int, of lanes: Int, total: Int = 10) -> TimedPublisherDriver {
        TimedPublisherDriver(
            factory: RequestFactory(target: .pubnode, hostHeader: "127.0.0.1"), channel: "fan", total: total,
            intervalMillis: 200, lane: lane, lanes: lanes, startAt: start, progress: SubscriberProgress()
        )
    }

    /// The sequence number stamped in a publish's message.
    private func sequence(of step: ExchangeStep) -> Int? {
        guard case .send(let request) = step, let range = request.uri.range(of: "%22seq%22%3A") else { return nil }
        return Int(request.uri[range.upperBound...].prefix { $0.isNumber })
    }

    /// The instant a step waits for, in nanoseconds.
    private func waitsUntil(_ step: ExchangeStep) -> UInt64? {
        guard case .wait(let deadline) = step else { return nil }
        return deadline.uptimeNanoseconds
    }

    func testALaneSendsItsShareAtTheScheduledInstantsAndRecordsHowLateItWas() {
        let driver = lane(1, of: 4)
        XCTAssertEqual(waitsUntil(driver.nextStep(now: start)), start + interval)
        XCTAssertEqual(sequence(of: driver.nextStep(now: start + interval)), 1)
        // The acknowledgement came back early: the lane waits for message 5's slot, not 200 ms.
        XCTAssertEqual(waitsUntil(driver.nextStep(now: start + interval + 30_000_000)), start + 5 * interval)
        XCTAssertEqual(sequence(of: driver.nextStep(now: start + 5 * interval + 50_000_000)), 5)
        // An acknowledgement later than the slot: message 9 leaves at once.
        XCTAssertEqual(sequence(of: driver.nextStep(now: start + 9 * interval + 7_000_000)), 9)
        guard case .finish = driver.nextStep(now: start + 10 * interval) else {
            return XCTFail("the lane should finish after its last message")
        }
        XCTAssertTrue(driver.isFinished)
        XCTAssertEqual(driver.maxLateness, 50_000_000)
    }

    func testTheLanesTogetherSendEveryMessageOnceEachAtItsOwnSlot() {
        var sent: [Int: UInt64] = [:]
        for index in 0..<3 {
            let driver = lane(index, of: 3)
            var now = start
            for _ in 0..<100 {
                let step = driver.nextStep(now: now)
                if case .finish = step { break }
                if let until = waitsUntil(step) {
                    now = until
                } else if let sequence = sequence(of: step) {
                    XCTAssertNil(sent[sequence], "message \(sequence) sent twice")
                    sent[sequence] = now
                }
            }
        }
        XCTAssertEqual(sent.keys.sorted(), Array(0..<10), "every lane should finish within its share of steps")
        for (sequence, instant) in sent { XCTAssertEqual(instant, start + UInt64(sequence) * interval) }
    }

    func testALaneThatStartsLateKeepsTheSharedScheduleRatherThanStartingItsOwn() {
        let driver = lane(2, of: 4)
        // Connected only after message 3's slot: message 2 leaves at once, 250 ms late...
        XCTAssertEqual(sequence(of: driver.nextStep(now: start + 3 * interval + 50_000_000)), 2)
        XCTAssertEqual(driver.maxLateness, 250_000_000)
        // ...and message 6 still waits for its own slot on the schedule everyone shares.
        XCTAssertEqual(waitsUntil(driver.nextStep(now: start + 3 * interval + 60_000_000)), start + 6 * interval)
    }

    func testOneLaneIsTheWholeSchedule() {
        let driver = lane(0, of: 1, total: 3)
        XCTAssertEqual(sequence(of: driver.nextStep(now: start)), 0)
        // Message 0's acknowledgement took 450 ms: messages 1 and 2 are both overdue and leave at once.
        XCTAssertEqual(sequence(of: driver.nextStep(now: start + 450_000_000)), 1)
        XCTAssertEqual(sequence(of: driver.nextStep(now: start + 460_000_000)), 2)
        XCTAssertEqual(driver.maxLateness, 250_000_000)
    }
}
