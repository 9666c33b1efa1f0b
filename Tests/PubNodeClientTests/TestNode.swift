import Foundation
import PubNodeClient
import PubNodeCore
import PubNodeServer
import XCTest

/// An in-process PubNode on a real loopback socket, with in-memory history.
final class TestNode: Sendable {
    let server: PubNodeHTTPServer
    let port: Int

    private init(server: PubNodeHTTPServer, port: Int) {
        self.server = server
        self.port = port
    }

    /// Starts a node on `port` (0: any free port).
    static func start(port: Int = 0) async throws -> TestNode {
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.eventLoopThreads = 2
        let clock = TimetokenClock()
        let history = MessageHistory(store: MemoryHistoryStore(), policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 1)
        let server = PubNodeHTTPServer(configuration: configuration, node: Node(clock: clock, history: history))
        let bound = try await server.start()
        return TestNode(server: server, port: bound)
    }

    func shutdown() async throws { try await server.shutdown() }

    /// A client of this node.
    func client(userId: String = "tester", retryPolicy: RetryPolicy = RetryPolicy(initialDelay: 0.05, maximumDelay: 0.5),
                presenceTimeout: Int = 0, heartbeatInterval: Int = 0) -> PubNodeClient {
        PubNodeClient(configuration: PubNodeConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: userId, origin: "127.0.0.1:\(port)",
            presenceTimeout: presenceTimeout, heartbeatInterval: heartbeatInterval, requestTimeout: 5,
            retryPolicy: retryPolicy))
    }
}

/// Collects every event a client reports, through a listener.
final class EventRecorder: SubscriptionListener, @unchecked Sendable {
    // Invariant: `recorded` is only touched while `lock` is held.
    private let lock = NSLock()
    private var recorded: [SubscriptionEvent] = []

    private func append(_ event: SubscriptionEvent) {
        lock.lock(); defer { lock.unlock() }
        recorded.append(event)
    }

    var events: [SubscriptionEvent] {
        lock.lock(); defer { lock.unlock() }
        return recorded
    }

    var messages: [ReceivedMessage] {
        events.compactMap { if case .message(let message) = $0 { return message } else { return nil } }
    }

    var signals: [ReceivedMessage] {
        events.compactMap { if case .signal(let signal) = $0 { return signal } else { return nil } }
    }

    var presence: [PresenceChange] {
        events.compactMap { if case .presence(let change) = $0 { return change } else { return nil } }
    }

    var statuses: [ConnectionStatus] {
        events.compactMap { if case .status(let change) = $0 { return change.current } else { return nil } }
    }

    func didReceive(message: ReceivedMessage) { append(.message(message)) }
    func didReceive(signal: ReceivedMessage) { append(.signal(signal)) }
    func didReceive(presence: PresenceChange) { append(.presence(presence)) }
    func didChange(status: StatusChange) { append(.status(status)) }
    func didChange(subscription: SubscriptionChange) { append(.subscriptionChanged(subscription)) }
    func didFail(error: PubNodeClientError) { append(.error(error)) }
}

/// Polls `condition` until it holds or `seconds` pass.
func waitUntil(_ seconds: Double = 10, _ what: String = "condition", file: StaticString = #filePath, line: UInt = #line,
               _ condition: () async -> Bool) async {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    XCTFail("timed out waiting for \(what)", file: file, line: line)
}

/// Subscribes and waits until the first long-poll is connected.
func subscribeConnected(_ client: PubNodeClient, _ recorder: EventRecorder, to channels: [String],
                        groups: [String] = [], withPresence: Bool = false) async {
    await client.subscribe(to: channels, and: groups, withPresence: withPresence)
    await waitUntil(5, "connected") { await client.connectionStatus == .connected }
    // The handshake has answered; give the long-poll a moment to park with the new cursor.
    try? await Task.sleep(nanoseconds: 100_000_000)
}
