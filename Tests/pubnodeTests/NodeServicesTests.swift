import Logging
import ServiceLifecycle
import UnixSignals
import XCTest
@testable import pubnode

final class NodeServicesTests: XCTestCase {
    /// Records when it starts and when it has stopped.
    struct RecordingService: Service {
        let name: String
        let log: EventLog
        let started: AsyncStream<Void>.Continuation

        func run() async throws {
            started.yield()
            try? await gracefulShutdown()
            log.record(name)
        }
    }

    func testAGracefulShutdownStopsSweepsThenServerThenHooksThenHistory() async throws {
        let log = EventLog()
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        func service(_ name: String) -> RecordingService { RecordingService(name: name, log: log, started: start) }
        let services = NodeServices(history: service("history"), webhooks: service("webhooks"), hooks: service("hooks"),
                                    server: service("server"),
                                    sweeps: [service("presence sweep"), service("channel sweep"), service("history sweep")])
        XCTAssertEqual(services.startOrder.count, 7)
        let group = services.group(signals: [], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        var iterator = started.makeAsyncIterator()
        for _ in 0..<7 { _ = await iterator.next() }

        await group.triggerGracefulShutdown()
        try await running.value
        XCTAssertEqual(log.all, ["history sweep", "channel sweep", "presence sweep", "server", "hooks", "webhooks", "history"])
    }

    func testWithoutHistoryTheOrderIsKept() {
        let log = EventLog()
        let (_, start) = AsyncStream.makeStream(of: Void.self)
        func service(_ name: String) -> RecordingService { RecordingService(name: name, log: log, started: start) }
        let services = NodeServices(history: nil, webhooks: service("webhooks"), hooks: service("hooks"),
                                    server: service("server"), sweeps: [service("sweep")])
        XCTAssertEqual(services.startOrder.compactMap { ($0 as? RecordingService)?.name },
                       ["webhooks", "hooks", "server", "sweep"])
    }

    func testASecondSignalEscalates() async {
        let (signals, signal) = AsyncStream.makeStream(of: UnixSignal.self)
        signal.yield(.sigterm)
        signal.yield(.sigint)
        signal.finish()
        var escalated: [UnixSignal] = []
        await SignalEscalation.watch(signals, logger: Logger(label: "test")) { escalated.append($0) }
        XCTAssertEqual(escalated, [.sigint])
        XCTAssertEqual(Int(128 + UnixSignal.sigint.rawValue), 130, "the exit status a second SIGINT gives")
    }

    func testOneSignalOnlyDrains() async {
        let (signals, signal) = AsyncStream.makeStream(of: UnixSignal.self)
        signal.yield(.sigterm)
        signal.finish()
        var escalated: [UnixSignal] = []
        await SignalEscalation.watch(signals, logger: Logger(label: "test")) { escalated.append($0) }
        XCTAssertEqual(escalated, [])
    }
}
