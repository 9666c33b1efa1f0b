@testable import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

/// A before handler backed by a closure.
struct ClosureBefore: BeforeHookHandler {
    let body: @Sendable (HookEvent) async throws -> HookDecision
    func before(_ event: HookEvent) async throws -> HookDecision { try await body(event) }
}

/// Records deliveries; the first `failures` attempts throw.
final class RecordingAfter: AfterHookHandler {
    private let log = Mutex<[HookDelivery]>([])
    private let failures: Mutex<Int>

    init(failing failures: Int = 0) { self.failures = Mutex(failures) }

    func after(_ delivery: HookDelivery) async throws {
        log.withLock { $0.append(delivery) }
        let fail = failures.withLock { left -> Bool in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        if fail { throw HookFailure.status(500) }
    }

    func succeed() { failures.withLock { $0 = 0 } }

    var deliveries: [HookDelivery] { log.withLock { $0 } }
}

/// An outbox store in memory, shared by successive engines like a database file.
final class MemoryOutboxStore: HookOutboxStore {
    let rows = Mutex<[UInt64: OutboxRecord]>([:])
    func load() throws -> [OutboxRecord] { rows.withLock { Array($0.values.filter { !$0.spilled }) } }
    func spilled() throws -> [String: SpilledEvents] {
        rows.withLock { rows in
            Dictionary(grouping: rows.values.filter(\.spilled), by: \.hook)
                .mapValues { SpilledEvents(count: $0.count, newestID: $0.map(\.id).max() ?? 0) }
        }
    }
    func unspill(hook: String, limit: Int) async throws -> [OutboxRecord] {
        rows.withLock { rows in
            let taken = rows.values.filter { $0.hook == hook && $0.spilled }.sorted { $0.id < $1.id }.prefix(limit)
            for record in taken { rows[record.id]?.spilled = false }
            return taken.map { record in
                var record = record
                record.spilled = false
                return record
            }
        }
    }
    func save(_ records: [OutboxRecord]) async throws { rows.withLock { for record in records { $0[record.id] = record } } }
    func delete(ids: [UInt64]) async throws { rows.withLock { for id in ids { $0[id] = nil } } }
}

final class HookEngineTests: XCTestCase {
    /// The retry delays below, with no jitter spread (`random` 0): half of 5, 10, 20 ms.
    private static let firstRetry = Duration.microseconds(2500)
    private static let secondRetry = Duration.milliseconds(5)

    /// An engine on `clock` (a manual one in the tests of retries and timeouts) without jitter.
    private func engine(_ bindings: [HookBinding], store: (any HookOutboxStore)? = nil,
                        clock: ManualClock) throws -> HookEngine {
        try HookEngine(bindings: bindings, store: store, clock: TimetokenClock(wall: clock), nodeClock: clock,
                       random: { 0 })
    }

    private func before(_ name: String, _ channels: [String] = ["*"], policy: HookBinding.FailurePolicy = .failClosed,
                        timeout: Duration = .seconds(1),
                        _ body: @escaping @Sendable (HookEvent) async throws -> HookDecision) -> HookBinding {
        var binding = HookBinding(name: name, trigger: .beforePublish, subscribeKey: "demo", channels: channels,
                                  handler: .before(ClosureBefore(body: body)))
        binding.policy = policy
        binding.timeout = timeout
        return binding
    }

    private func after(_ handler: RecordingAfter, trigger: HookTrigger = .afterPublish, attempts: Int = 8,
                       capacity: Int = 100) -> HookBinding {
        var binding = HookBinding(name: "after", trigger: trigger, subscribeKey: "demo", channels: ["*"], handler: .after(handler))
        binding.delivery.baseDelay = .milliseconds(5)
        binding.delivery.maxDelay = .milliseconds(20)
        binding.delivery.maxAttempts = attempts
        binding.delivery.capacity = capacity
        return binding
    }

    private func publish(_ channel: String, _ payload: String, fire: Bool = false) -> PublishRequest {
        PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: channel, payload: Array(payload.utf8),
                       uuid: "alice", store: fire ? false : nil, noReplication: fire)
    }

    private func buffered(_ node: Node, _ channel: String) throws -> [String] {
        try node.keyset("demo").collect(Fixture.subscription([channel]), after: .zero).deliveries
            .map { String(decoding: $0.message.payload, as: UTF8.self) }
    }

    func testBeforeChainSeesEarlierChangesAndStopsAtAbort() async throws {
        let engine = try HookEngine(bindings: [
            before("upper") { event in .modify(message: Array(#""HELLO""#.utf8), meta: Array(#"{"checked":1}"#.utf8)) },
            before("ban", ["rules"]) { event in
                event.message == Array(#""HELLO""#.utf8) ? .abort(status: 451, text: "shouting") : .pass
            },
        ])
        let node = Node(hooks: engine)
        let result = try await node.publish(publish("chat", #""hello""#))
        XCTAssertEqual(String(decoding: result.message.payload, as: UTF8.self), #""HELLO""#)
        XCTAssertEqual(result.message.meta.map { String(decoding: $0, as: UTF8.self) }, #"{"checked":1}"#)
        XCTAssertEqual(try buffered(node, "chat"), [#""HELLO""#])
        do {
            _ = try await node.publish(publish("rules", #""hello""#))
            XCTFail("the second hook aborts what the first one changed")
        } catch {
            XCTAssertEqual(error, .refusedByHook(status: 451, text: "shouting"))
        }
        XCTAssertEqual(try buffered(node, "rules"), [], "an aborted message is not buffered")
    }

    func testFailurePoliciesApplyToErrorsAndTimeouts() async throws {
        let clock = ManualClock()
        let stuck = TestGate()
        defer { stuck.open() }
        let engine = try engine([
            before("open", ["open"], policy: .failOpen) { _ in throw CancellationError() },
            before("closed", ["closed"], policy: .failClosed) { _ in throw CancellationError() },
            before("slow", ["slow"], policy: .failClosed, timeout: .milliseconds(50)) { _ in
                // Ignores cancellation on purpose: the deadline must not wait for it.
                await stuck.wait()
                return .pass
            },
        ], clock: clock)
        let node = Node(hooks: engine)
        _ = try await node.publish(publish("open", "1"))
        XCTAssertEqual(try buffered(node, "open"), ["1"], "fail-open accepts the message unchanged")
        do {
            _ = try await node.publish(publish("closed", "1"))
            XCTFail("fail-closed refuses")
        } catch {
            guard case .refusedByHook(503, let text) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(text.contains("closed"), text)
        }
        let request = publish("slow", "1")
        let slow = Task { try await node.publish(request) }
        let timedOut = await clock.advanceToSleeper(dueIn: .milliseconds(50))
        XCTAssertTrue(timedOut, "the hook runs under its 50 ms timeout: \(clock.deadlines)")
        do {
            _ = try await slow.value
            XCTFail("a timed-out fail-closed hook refuses")
        } catch {
            guard case PubNodeError.refusedByHook(503, let text) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(text.contains("timed out"), text)
        }
        XCTAssertEqual(stuck.waiting, 1, "the timeout answers without waiting for the handler")
    }

    func testFireRunsHooksButIsNeitherBufferedNorDelivered() async throws {
        let recorder = RecordingAfter()
        let engine = try HookEngine(bindings: [
            before("tag") { _ in .modify(message: Array(#"{"tagged":true}"#.utf8), meta: nil) }, after(recorder),
        ])
        try engine.start()
        let node = Node(hooks: engine)
        let hub = try node.keyset("demo")
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: Fixture.subscription(["ops"]), after: .zero))
        let result = try await node.publish(publish("ops", #"{"tagged":false}"#, fire: true))
        _ = result
        XCTAssertEqual(waiter.wakeCount, 0, "nobody is woken by a fire")
        XCTAssertEqual(try buffered(node, "ops"), [])
        let delivered = await eventually { recorder.deliveries.count == 1 }
        XCTAssertTrue(delivered)
        let event = try XCTUnwrap(recorder.deliveries.first?.event)
        XCTAssertEqual(event.action, .fire)
        XCTAssertEqual(event.message, Array(#"{"tagged":true}"#.utf8), "after hooks see what before hooks left")
        XCTAssertEqual(event.timetoken, result.timetoken)
        await engine.shutdown()
    }

    func testAfterEventsAreRetriedUntilDelivered() async throws {
        let recorder = RecordingAfter(failing: 2)
        let clock = ManualClock()
        let engine = try engine([after(recorder)], clock: clock)
        try engine.start()
        let node = Node(hooks: engine)
        _ = try await node.publish(publish("chat", #""hi""#))
        XCTAssertEqual(engine.stats().first?.counters.delivered, 0, "the publisher does not wait for delivery")
        let firstRetry = await clock.advanceToSleeper(dueIn: Self.firstRetry)
        XCTAssertTrue(firstRetry, "the first retry waits half the 5 ms base: \(clock.deadlines)")
        let secondRetry = await clock.advanceToSleeper(dueIn: Self.secondRetry)
        XCTAssertTrue(secondRetry, "the second waits twice as long: \(clock.deadlines)")
        let delivered = await eventually { engine.stats().first?.counters.delivered == 1 }
        XCTAssertTrue(delivered)
        let deliveries = recorder.deliveries
        XCTAssertEqual(deliveries.map(\.attempt), [1, 2, 3])
        XCTAssertEqual(Set(deliveries.map(\.id)).count, 1, "retries carry the same delivery id")
        let stats = try XCTUnwrap(engine.stats().first)
        XCTAssertEqual(stats.counters.retries, 2)
        XCTAssertEqual(stats.pending, 0)
        await engine.shutdown()
    }

    func testExhaustedEventsAreDeadLetteredThenReplayed() async throws {
        let recorder = RecordingAfter(failing: 1000)
        let clock = ManualClock()
        let engine = try engine([after(recorder, attempts: 2)], clock: clock)
        try engine.start()
        let node = Node(hooks: engine)
        _ = try await node.publish(publish("chat", "1"))
        let retried = await clock.advanceToSleeper(dueIn: Self.firstRetry)
        XCTAssertTrue(retried, "one retry before the attempts are used up")
        let dead = await eventually { engine.deadLetters().count == 1 }
        XCTAssertTrue(dead)
        XCTAssertEqual(engine.deadLetters().first?.attempts, 2)
        XCTAssertEqual(engine.deadLetters().first?.lastError, "answered HTTP 500")
        XCTAssertEqual(recorder.deliveries.count, 2)
        recorder.succeed()
        let replayed = await engine.replay(hook: "after")
        XCTAssertEqual(replayed, 1)
        let delivered = await eventually { engine.stats().first?.counters.delivered == 1 }
        XCTAssertTrue(delivered)
        XCTAssertTrue(engine.deadLetters().isEmpty)
        XCTAssertEqual(engine.stats().first?.counters.replayed, 1)
        await engine.shutdown()
    }

    func testFullOutboxDropsNewEventsAndCountsThem() async throws {
        let engine = try HookEngine(bindings: [after(RecordingAfter(), capacity: 2)])
        let node = Node(hooks: engine)
        for index in 0..<3 { _ = try await node.publish(publish("chat", String(index))) }
        XCTAssertEqual(try buffered(node, "chat"), ["0", "1", "2"], "a full outbox never refuses the publish")
        let stats = try XCTUnwrap(engine.stats().first)
        XCTAssertEqual(stats.pending, 2)
        XCTAssertEqual(stats.counters.dropped, 1)
    }

    func testStoredEventsOutliveTheEngineUntilDelivered() async throws {
        let store = MemoryOutboxStore()
        let failing = RecordingAfter(failing: 1000)
        var binding = after(failing)
        binding.delivery.baseDelay = .seconds(60)
        binding.delivery.maxDelay = .seconds(60)
        let clock = ManualClock()
        let first = try engine([binding], store: store, clock: clock)
        try first.start()
        let node = Node(hooks: first)
        _ = try await node.publish(publish("chat", "1"))
        _ = try await node.publish(publish("chat", "2"))
        // The saver writes a batch per 2 ms gathering pass; far from the 30 s retry.
        let attempted = await clock.advance(by: HookOutbox.gatherInterval) {
            store.rows.withLock { $0.values.filter { $0.attempts == 1 }.count } == 2
        }
        XCTAssertTrue(attempted, "failed attempts are written back")
        await first.shutdown()

        let recorder = RecordingAfter()
        let second = try HookEngine(bindings: [after(recorder)], store: store)
        try second.start()
        let delivered = await eventually { recorder.deliveries.count == 2 }
        XCTAssertTrue(delivered)
        XCTAssertEqual(recorder.deliveries.compactMap { $0.event?.message }.map { String(decoding: $0, as: UTF8.self) }.sorted(),
                       ["1", "2"])
        XCTAssertEqual(recorder.deliveries.map(\.attempt), [2, 2], "attempts continue where they stopped")
        let emptied = await eventually { store.rows.withLock { $0.isEmpty } }
        XCTAssertTrue(emptied, "delivered events leave the store")
        await second.shutdown()
    }

    /// Waits until its gate opens, ignoring cancellation.
    struct Stuck: AfterHookHandler {
        let gate: TestGate
        func after(_ delivery: HookDelivery) async throws {
            await gate.wait()
        }
    }

    func testEventsAreSavedAtOnceEvenWhileEveryWorkerIsBusy() async throws {
        let store = MemoryOutboxStore()
        let gate = TestGate()
        defer { gate.open() }
        var binding = HookBinding(name: "stuck", trigger: .afterPublish, subscribeKey: "demo", channels: ["*"],
                                  handler: .after(Stuck(gate: gate)))
        binding.delivery.concurrency = 1
        binding.timeout = .milliseconds(300)
        let clock = ManualClock()
        let engine = try engine([binding], store: store, clock: clock)
        try engine.start()
        let node = Node(hooks: engine)
        for index in 0..<5 { _ = try await node.publish(publish("chat", String(index))) }
        let attempting = await eventually { gate.waiting == 1 }
        XCTAssertTrue(attempting, "the only worker is stuck in its first attempt")
        let saved = await clock.advance(by: HookOutbox.gatherInterval) { store.rows.withLock { $0.count } == 5 }
        XCTAssertTrue(saved, "queued events reach the store while the only worker is stuck")
        let stopping = Task { await engine.shutdown() }
        // Shutdown ends once the stuck attempt times out, 300 ms after it started.
        let stopped = await clock.advance(by: .milliseconds(10)) { engine.stats().first?.inFlight == 0 }
        XCTAssertTrue(stopped, "the stuck attempt times out")
        await stopping.value
        XCTAssertEqual(gate.waiting, 1, "shutdown waits at most for the current attempt, not for the handler")
        XCTAssertEqual(store.rows.withLock { $0.count }, 5, "undelivered events stay stored for the next start")
        _ = try await node.publish(publish("chat", #""late""#))
        XCTAssertEqual(engine.stats().first?.counters.dropped, 1, "a closed outbox takes no more events")
    }

    func testPresenceChangesReachHooksEvenAboveAnnounceMax() async throws {
        let recorder = RecordingAfter()
        var limits = Limits()
        limits.announceMax = 1
        let engine = try HookEngine(bindings: [after(recorder, trigger: .afterPresence)])
        try engine.start()
        let node = Node(limits: limits, hooks: engine)
        let hub = try node.keyset("demo")
        for uuid in ["a", "b", "c"] { _ = try hub.heartbeat(PresenceUpdate(uuid: uuid, channels: ["room"])) }
        _ = hub.leave(uuid: "b", channels: ["room"], groups: [])
        let delivered = await eventually { recorder.deliveries.count == 4 }
        XCTAssertTrue(delivered)
        let events = recorder.deliveries.compactMap(\.event).sorted { ($0.occupancy ?? 0, $0.action.rawValue) < ($1.occupancy ?? 0, $1.action.rawValue) }
        XCTAssertEqual(events.map(\.action), [.join, .join, .leave, .join])
        XCTAssertEqual(Set(events.map(\.channel)), ["room"])
        XCTAssertEqual(Set(events.compactMap(\.uuid)), ["a", "b", "c"])
        await engine.shutdown()
    }
}
