@testable import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

/// Records each delivered message once its gate is open: a receiver that stalls until then.
final class GatedAfter: AfterHookHandler {
    let gate = TestGate()
    private let log = Mutex<[String]>([])

    func after(_ delivery: HookDelivery) async throws {
        await gate.wait()
        let message = delivery.event?.message.map { String(decoding: $0, as: UTF8.self) } ?? "?"
        log.withLock { $0.append(message) }
    }

    var messages: [String] { log.withLock { $0 } }
}

final class HookSpillTests: XCTestCase {
    private let events = 1000

    private func binding(_ handler: GatedAfter, capacity: Int = 10, maxSpilled: Int = 1_000_000,
                         timeout: Duration = .seconds(60)) -> HookBinding {
        var binding = HookBinding(name: "audit", trigger: .afterPublish, subscribeKey: "demo", channels: ["*"],
                                  handler: .after(handler))
        binding.delivery.capacity = capacity
        binding.delivery.maxSpilledEvents = maxSpilled
        binding.delivery.concurrency = 1
        binding.timeout = timeout
        return binding
    }

    private func engine(_ binding: HookBinding, store: (any HookOutboxStore)?, clock: ManualClock) throws -> HookEngine {
        try HookEngine(bindings: [binding], store: store, clock: TimetokenClock(wall: clock), nodeClock: clock,
                       random: { 0 })
    }

    private func publish(_ count: Int, to engine: HookEngine) async throws {
        let node = Node(hooks: engine)
        for index in 0..<count {
            _ = try await node.publish(PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: "chat",
                                                      payload: Array("\(index)".utf8), uuid: "alice"))
        }
    }

    /// Publishes `count` events 10 at a time, letting the saver handle each 10 before the next:
    /// memory holds at most twice the capacity, so a burst larger than that would drop events.
    private func publishPaced(_ count: Int, to engine: HookEngine, clock: ManualClock) async throws {
        let node = Node(hooks: engine)
        let outbox = engine.outboxes.values.first!
        for start in stride(from: 0, to: count, by: 10) {
            for index in start..<min(start + 10, count) {
                _ = try await node.publish(PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: "chat",
                                                          payload: Array("\(index)".utf8), uuid: "alice"))
            }
            let handled = await clock.advance(by: HookOutbox.gatherInterval) {
                outbox.pending.load(ordering: .relaxed) - outbox.stored.load(ordering: .relaxed)
                    <= outbox.state.withLock { $0.resident }
            }
            XCTAssertTrue(handled)
        }
    }

    private func stats(_ engine: HookEngine) -> HookStats { engine.stats()[0] }

    private func resident(_ engine: HookEngine) -> Int {
        engine.outboxes.values.first!.state.withLock { $0.resident }
    }

    /// Publishes `events` to a stalled receiver and waits until the outbox has settled: one event
    /// in flight, nine more in memory, the rest spilled.
    private func fillWhileStalled(_ engine: HookEngine, store: MemoryOutboxStore, clock: ManualClock) async throws {
        try await publishPaced(events, to: engine, clock: clock)
        let settled = await clock.advance(by: HookOutbox.gatherInterval) {
            stats(engine).spilled == events - 10 && store.rows.withLock { $0.count } == events
        }
        XCTAssertTrue(settled, "spilled \(stats(engine).spilled), stored \(store.rows.withLock { $0.count })")
        XCTAssertEqual(resident(engine), 10, "memory holds `capacity` events, no more")
        XCTAssertEqual(store.rows.withLock { $0.values.filter(\.spilled).count }, events - 10)
        XCTAssertEqual(stats(engine).counters.dropped, 0)
        XCTAssertEqual(stats(engine).pending + stats(engine).inFlight, events)
    }

    func testADurableOutboxKeepsEventsPastCapacityOnDiskAndDeliversThemInOrder() async throws {
        let clock = ManualClock()
        let store = MemoryOutboxStore()
        let receiver = GatedAfter()
        defer { receiver.gate.open() }
        let engine = try engine(binding(receiver), store: store, clock: clock)
        try engine.start()
        try await fillWhileStalled(engine, store: store, clock: clock)

        receiver.gate.open()
        let delivered = await clock.advance(by: HookOutbox.gatherInterval) { receiver.messages.count == events }
        XCTAssertTrue(delivered, "\(receiver.messages.count) delivered")
        XCTAssertEqual(receiver.messages, (0..<events).map(String.init), "every event, in order")
        XCTAssertEqual(stats(engine).spilled, 0)
        XCTAssertEqual(stats(engine).counters.dropped, 0)
        XCTAssertEqual(stats(engine).counters.delivered, events)
        let emptied = await clock.advance(by: HookOutbox.gatherInterval) { store.rows.withLock { $0.isEmpty } }
        XCTAssertTrue(emptied, "delivered events leave the store")
        await engine.shutdown()
    }

    func testSpilledEventsOutliveARestart() async throws {
        let clock = ManualClock()
        let store = MemoryOutboxStore()
        let stalled = GatedAfter()
        defer { stalled.gate.open() }
        let first = try engine(binding(stalled, timeout: .milliseconds(300)), store: store, clock: clock)
        try first.start()
        try await fillWhileStalled(first, store: store, clock: clock)
        let stopping = Task { await first.shutdown() }
        let stopped = await clock.advance(by: .milliseconds(10)) { self.stats(first).inFlight == 0 }
        XCTAssertTrue(stopped, "the stalled attempt times out")
        await stopping.value
        XCTAssertEqual(store.rows.withLock { $0.count }, events, "everything undelivered is stored")

        let receiver = GatedAfter()
        receiver.gate.open()
        XCTAssertEqual(try store.spilled()["audit"]?.count, events - 10, "spilled events wait in the store")
        let second = try engine(binding(receiver), store: store, clock: clock)
        try second.start()
        let delivered = await clock.advance(by: HookOutbox.gatherInterval) { receiver.messages.count == events }
        XCTAssertTrue(delivered, "\(receiver.messages.count) delivered")
        XCTAssertEqual(receiver.messages, (0..<events).map(String.init), "every event, in order")
        XCTAssertEqual(stats(second).counters.dropped, 0)
        await second.shutdown()
    }

    func testPastTheDiskBudgetEventsAreDroppedAndCounted() async throws {
        let clock = ManualClock()
        let store = MemoryOutboxStore()
        let receiver = GatedAfter()
        defer { receiver.gate.open() }
        let engine = try engine(binding(receiver, maxSpilled: 100), store: store, clock: clock)
        try engine.start()
        try await publishPaced(200, to: engine, clock: clock)
        let settled = await clock.advance(by: HookOutbox.gatherInterval) { stats(engine).spilled == 100 }
        XCTAssertTrue(settled, "spilled \(stats(engine).spilled)")
        XCTAssertEqual(stats(engine).counters.dropped, 90, "10 in memory and 100 on disk are kept")
        XCTAssertEqual(stats(engine).counters.enqueued, 110)
        receiver.gate.open()
        let delivered = await clock.advance(by: HookOutbox.gatherInterval) { receiver.messages.count == 110 }
        XCTAssertTrue(delivered)
        XCTAssertEqual(receiver.messages, (0..<110).map(String.init))
        await engine.shutdown()
    }

    func testAMemoryOnlyOutboxStillDropsPastCapacity() async throws {
        let clock = ManualClock()
        let receiver = GatedAfter()
        defer { receiver.gate.open() }
        let engine = try engine(binding(receiver), store: nil, clock: clock)
        try engine.start()
        try await publish(events, to: engine)
        XCTAssertEqual(stats(engine).counters.dropped, events - 10)
        XCTAssertEqual(stats(engine).spilled, 0)
        receiver.gate.open()
        let delivered = await clock.advance(by: HookOutbox.gatherInterval) { receiver.messages.count == 10 }
        XCTAssertTrue(delivered)
        XCTAssertEqual(receiver.messages, (0..<10).map(String.init))
        await engine.shutdown()
    }
}
