import Logging
@testable import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

/// A store whose writes fail while `failing` is set (a full disk), or wait at `gate` (a slow one).
final class TroubledOutboxStore: HookOutboxStore {
    struct Refused: Error {}
    let base = MemoryOutboxStore()
    let failing = Mutex(false)
    let failures = Mutex(0)
    let gate = Mutex<TestGate?>(nil)

    func load() throws -> [OutboxRecord] { try base.load() }
    func spilled() throws -> [String: SpilledEvents] { try base.spilled() }
    func unspill(hook: String, limit: Int) async throws -> [OutboxRecord] { try await base.unspill(hook: hook, limit: limit) }
    func save(_ records: [OutboxRecord]) async throws {
        if let gate = gate.withLock({ $0 }) { await gate.wait() }
        if failing.withLock({ $0 }) {
            failures.withLock { $0 += 1 }
            throw Refused()
        }
        try await base.save(records)
    }
    func delete(ids: [UInt64]) async throws { try await base.delete(ids: ids) }
    var rows: Int { base.rows.withLock { $0.count } }
}

/// Keeps the messages of the error lines a logger is told.
final class ErrorLog: LogHandler, @unchecked Sendable {
    let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        if event.level >= .error { lines.withLock { $0.append("\(event.message)") } }
    }
    func count(_ text: String) -> Int { lines.withLock { $0.filter { $0.contains(text) }.count } }
}

final class HookSpillFailureTests: XCTestCase {
    private let log = ErrorLog()

    private func engine(_ receiver: GatedAfter, store: TroubledOutboxStore, clock: ManualClock,
                        timeout: Duration = .seconds(60)) throws -> HookEngine {
        var binding = HookBinding(name: "audit", trigger: .afterPublish, subscribeKey: "demo", channels: ["*"],
                                  handler: .after(receiver))
        binding.delivery.capacity = 10
        binding.delivery.concurrency = 1
        binding.timeout = timeout
        return try HookEngine(bindings: [binding], store: store, clock: TimetokenClock(wall: clock), nodeClock: clock,
                              logger: Logger(label: "test") { _ in self.log }, random: { 0 })
    }

    private func publish(_ range: Range<Int>, to engine: HookEngine) async throws {
        let node = Node(hooks: engine)
        for index in range {
            _ = try await node.publish(PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: "chat",
                                                      payload: Array("\(index)".utf8), uuid: "alice"))
        }
    }

    private func outbox(_ engine: HookEngine) -> HookOutbox { engine.outboxes.values.first! }

    /// Events held in memory: resident, waiting to be spilled, incoming.
    private func inMemory(_ engine: HookEngine) -> Int {
        outbox(engine).pending.load(ordering: .relaxed) - outbox(engine).stored.load(ordering: .relaxed)
    }

    /// Moves the clock until the saver has handled every incoming event and written its spill.
    private func settle(_ engine: HookEngine, clock: ManualClock, unwritten: Int = 0,
                        file: StaticString = #filePath, line: UInt = #line) async {
        let outbox = outbox(engine)
        let settled = await clock.advance(by: HookOutbox.gatherInterval) {
            outbox.incomingIsEmpty() && outbox.state.withLock { $0.spillPending.count == unwritten }
                && self.inMemory(engine) == outbox.state.withLock { $0.resident } + unwritten
        }
        XCTAssertTrue(settled, "in memory \(inMemory(engine))", file: file, line: line)
    }

    /// 10 in memory (one in flight) and 5 spilled to the store, then the store fails.
    private func fillThenFail(_ engine: HookEngine, store: TroubledOutboxStore, clock: ManualClock) async throws {
        try await publish(0..<10, to: engine)
        await settle(engine, clock: clock)
        try await publish(10..<15, to: engine)
        await settle(engine, clock: clock)
        XCTAssertEqual(store.rows, 15)
        store.failing.withLock { $0 = true }
        try await publish(15..<45, to: engine)
        XCTAssertEqual(engine.stats()[0].counters.dropped, 20, "past twice the capacity in memory, events drop")
        await settle(engine, clock: clock, unwritten: 10)
        XCTAssertLessThanOrEqual(inMemory(engine), 20)
        XCTAssertEqual(engine.stats()[0].spilled, 15, "unwritten spilled events still count as spilled")
    }

    func testFailedSpillWritesAreRetriedInOrderWithMemoryBounded() async throws {
        let clock = ManualClock()
        let store = TroubledOutboxStore()
        let receiver = GatedAfter()
        defer { receiver.gate.open() }
        let engine = try engine(receiver, store: store, clock: clock)
        try engine.start()
        try await fillThenFail(engine, store: store, clock: clock)
        for _ in 0..<20 { _ = await clock.advance(by: HookOutbox.gatherInterval) { store.failures.withLock { $0 } > 20 } }
        XCTAssertGreaterThan(store.failures.withLock { $0 }, 20, "each pass tries again")
        XCTAssertEqual(log.count("write failed"), 1, "failures are logged once per 10 seconds, not per pass")

        store.failing.withLock { $0 = false }
        await settle(engine, clock: clock)
        XCTAssertEqual(store.rows, 25, "the unwritten spill is written once the store recovers")
        try await publish(45..<55, to: engine)
        await settle(engine, clock: clock)
        XCTAssertEqual(engine.stats()[0].counters.dropped, 20)

        receiver.gate.open()
        let delivered = await clock.advance(by: HookOutbox.gatherInterval) { receiver.messages.count == 35 }
        XCTAssertTrue(delivered, "\(receiver.messages.count) delivered")
        XCTAssertEqual(receiver.messages, (0..<25).map(String.init) + (45..<55).map(String.init), "none lost, in order")
        let emptied = await clock.advance(by: HookOutbox.gatherInterval) { store.rows == 0 }
        XCTAssertTrue(emptied)
        await engine.shutdown()
    }

    func testStoppingWhileSpillWritesFailKeepsWhatItCanAndCountsTheRest() async throws {
        let clock = ManualClock()
        let store = TroubledOutboxStore()
        let stalled = GatedAfter()
        defer { stalled.gate.open() }
        let first = try engine(stalled, store: store, clock: clock, timeout: .milliseconds(300))
        try first.start()
        try await fillThenFail(first, store: store, clock: clock)
        let stopping = Task { await first.shutdown() }
        let stopped = await clock.advance(by: .milliseconds(10)) { first.stats()[0].inFlight == 0 }
        XCTAssertTrue(stopped)
        await stopping.value
        XCTAssertEqual(first.stats()[0].counters.dropped, 30, "the spill never written is counted as dropped")
        XCTAssertEqual(store.rows, 15, "what was written stays")

        store.failing.withLock { $0 = false }
        let receiver = GatedAfter()
        receiver.gate.open()
        let second = try engine(receiver, store: store, clock: clock)
        try second.start()
        let delivered = await clock.advance(by: HookOutbox.gatherInterval) { receiver.messages.count == 15 }
        XCTAssertTrue(delivered, "\(receiver.messages.count) delivered")
        XCTAssertEqual(receiver.messages, (0..<15).map(String.init))
        await second.shutdown()
    }

    func testASlowStoreKeepsMemoryBounded() async throws {
        let clock = ManualClock()
        let store = TroubledOutboxStore()
        let receiver = GatedAfter()
        defer { receiver.gate.open() }
        let engine = try engine(receiver, store: store, clock: clock)
        try engine.start()
        try await publish(0..<10, to: engine)
        await settle(engine, clock: clock)
        let slow = TestGate()
        store.gate.withLock { $0 = slow }
        try await publish(10..<15, to: engine)
        let waiting = await clock.advance(by: HookOutbox.gatherInterval) { slow.arrivals == 1 }
        XCTAssertTrue(waiting, "the saver waits on the store")
        try await publish(15..<115, to: engine)
        XCTAssertEqual(engine.stats()[0].counters.dropped, 95, "publishers cannot fill memory past the limit")
        XCTAssertLessThanOrEqual(inMemory(engine), 20)

        store.gate.withLock { $0 = nil }
        slow.open()
        await settle(engine, clock: clock)
        receiver.gate.open()
        let delivered = await clock.advance(by: HookOutbox.gatherInterval) { receiver.messages.count == 20 }
        XCTAssertTrue(delivered, "\(receiver.messages.count) delivered")
        XCTAssertEqual(receiver.messages, (0..<20).map(String.init))
        await engine.shutdown()
    }
}
