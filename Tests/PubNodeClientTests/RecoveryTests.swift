import Foundation
@testable import PubNodeClient
import PubNodeTestSupport
import XCTest

/// A sleeper that records each requested gap and returns at once.
final class RecordingSleeper: PubNodeSleeper, @unchecked Sendable {
    // Invariant: `recorded` is only touched while `lock` is held.
    private let lock = NSLock()
    private var recorded: [Double] = []

    var gaps: [Double] {
        lock.lock(); defer { lock.unlock() }
        return recorded
    }

    func sleep(seconds: Double) async throws {
        lock.withLock { recorded.append(seconds) }
        await Task.yield()
        try Task.checkCancellation()
    }
}

/// A transport that answers subscribe requests from a script: `nil` fails, a body answers 200.
final class ScriptedTransport: PubNodeTransport, @unchecked Sendable {
    // Invariant: `script` and `requests` are only touched while `lock` is held.
    private let lock = NSLock()
    private var script: [String?]
    private var requests: [URL] = []
    private var timeouts: [Double] = []
    private var otherRequests: [URL] = []

    init(_ script: [String?]) { self.script = script }

    var sent: [URL] {
        lock.lock(); defer { lock.unlock() }
        return requests
    }

    /// The timeout of each subscribe request, in order.
    var subscribeTimeouts: [Double] {
        lock.lock(); defer { lock.unlock() }
        return timeouts
    }

    /// Requests other than subscribe (heartbeats, leaves).
    var others: [URL] {
        lock.lock(); defer { lock.unlock() }
        return otherRequests
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.path.contains("/v2/subscribe/") else {
            lock.withLock { otherRequests.append(request.url) }
            return TransportResponse(status: 200, body: Data(#"{"status":200,"message":"OK"}"#.utf8))
        }
        let step: String?? = {
            lock.lock(); defer { lock.unlock() }
            requests.append(request.url)
            timeouts.append(request.timeout)
            return script.isEmpty ? .none : .some(script.removeFirst())
        }()
        switch step {
        case .none:
            // A long-poll that never answers.
            try await waitForCancellation()
            throw CancellationError()
        case .some(.none):
            throw URLError(.cannotConnectToHost)
        case .some(.some(let body)):
            return TransportResponse(status: 200, body: Data(body.utf8))
        }
    }
}

/// Backoff, dedupe and recovery across a node restart.
final class RecoveryTests: XCTestCase {
    private func client(_ transport: ScriptedTransport, _ sleeper: any PubNodeSleeper, policy: RetryPolicy) -> PubNodeClient {
        PubNodeClient(configuration: PubNodeConfiguration(subscribeKey: "demo", userId: "u", retryPolicy: policy),
                      transport: transport, sleeper: sleeper, random: { 0.5 })
    }

    func testBackoffDoublesUpToTheCapAndResetsAfterSuccess() async throws {
        let answer = #"{"t":{"t":"17000000000000000","r":1},"m":[]}"#
        let transport = ScriptedTransport([nil, nil, nil, nil, nil, answer, nil, nil, answer])
        let sleeper = RecordingSleeper()
        let client = client(transport, sleeper, policy: RetryPolicy(initialDelay: 1, maximumDelay: 8, jitter: 0.2))
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["c"])
        await waitUntil { transport.sent.count == 10 }
        XCTAssertEqual(sleeper.gaps, [0.9, 1.8, 3.6, 7.2, 7.2, 0.9, 1.8], "20 % jitter at random 0.5 takes 10 % off")
        XCTAssertEqual(recorder.statuses, [.connecting, .reconnecting, .connected, .reconnecting, .connected])
        XCTAssertTrue(transport.sent.last?.query?.contains("tt=17000000000000000") ?? false, "resumes from the cursor")
        await client.unsubscribeAll()
    }

    func testTheHandshakeUsesTheRequestTimeoutAndOnlyLongPollsWaitLonger() async throws {
        let transport = ScriptedTransport([#"{"t":{"t":"100","r":1},"m":[]}"#])
        let client = PubNodeClient(configuration: PubNodeConfiguration(subscribeKey: "demo", userId: "u", requestTimeout: 3,
                                                                       subscribeRequestTimeout: 300),
                                   transport: transport, sleeper: RecordingSleeper(), random: { 0.5 })
        await client.subscribe(to: ["c"])
        await waitUntil { transport.subscribeTimeouts.count >= 2 }
        XCTAssertEqual(transport.subscribeTimeouts, [3, 300], "handshake then long-poll")
        await client.unsubscribeAll()
    }

    func testALeaveRightAfterAPollIsRepeatedOnceThePollHasArrived() async throws {
        for (pause, leaves) in [(Duration.zero, 2), (.milliseconds(400), 1)] {
            let clock = ManualClock()
            let transport = ScriptedTransport([#"{"t":{"t":"100","r":1},"m":[]}"#])
            let client = client(transport, clock, policy: .default)
            await client.subscribe(to: ["c"])
            await waitUntil { transport.sent.count >= 2 }
            clock.advance(by: pause)
            let leaving = Task { await client.unsubscribeAll() }
            if leaves == 2 {
                await waitUntil { transport.others.filter { $0.path.hasSuffix("/leave") }.count == 1 }
                let settled = await clock.advanceToSleeper(dueIn: .milliseconds(250))
                XCTAssertTrue(settled, "the repeat waits until the poll has had 250 ms to arrive: \(clock.deadlines)")
            }
            await leaving.value
            let sent = transport.others.filter { $0.path.hasSuffix("/leave") }
            XCTAssertEqual(sent.count, leaves, "pause \(pause)")
        }
    }

    func testGivesUpAfterMaximumAttempts() async throws {
        let transport = ScriptedTransport([nil, nil, nil, nil, nil, nil])
        let sleeper = RecordingSleeper()
        let client = client(transport, sleeper, policy: RetryPolicy(initialDelay: 2, maximumAttempts: 3, jitter: 0))
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["c"])
        await waitUntil { await client.connectionStatus == .disconnectedUnexpectedly }
        XCTAssertEqual(sleeper.gaps, [2, 4, 8])
        XCTAssertEqual(transport.sent.count, 4)
        XCTAssertEqual(recorder.statuses, [.connecting, .reconnecting, .disconnectedUnexpectedly])
    }

    func testDefaultPolicyCapsTheGapAt120Seconds() {
        let policy = RetryPolicy.default
        XCTAssertEqual(policy.delay(forAttempt: 30, random: 0), 120)
        XCTAssertLessThanOrEqual(policy.delay(forAttempt: 30, random: 0.99), 120)
        XCTAssertGreaterThanOrEqual(policy.delay(forAttempt: 30, random: 0.99), 96)
    }

    func testMessagesDeliveredTwiceAreDroppedOnce() async throws {
        let message = #"{"a":"0","f":0,"i":"p","p":{"t":"17000000000000005","r":1},"k":"demo","c":"c","d":{"n":1}}"#
        let transport = ScriptedTransport([
            #"{"t":{"t":"17000000000000000","r":1},"m":[]}"#,
            #"{"t":{"t":"17000000000000005","r":1},"m":[\#(message)]}"#,
            #"{"t":{"t":"17000000000000005","r":1},"m":[\#(message)]}"#,
        ])
        let client = client(transport, RecordingSleeper(), policy: .default)
        let recorder = EventRecorder()
        client.addListener(recorder)
        await client.subscribe(to: ["c"])
        await waitUntil { transport.sent.count == 4 }
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertEqual(recorder.messages.first?.payload, ["n": 1])
        await client.unsubscribeAll()
    }

    func testHeartbeatsOnTheTimerAndLeavesOnUnsubscribe() async throws {
        let transport = ScriptedTransport([#"{"t":{"t":"17000000000000000","r":1},"m":[]}"#])
        let sleeper = RecordingSleeper()
        let client = PubNodeClient(
            configuration: PubNodeConfiguration(subscribeKey: "demo", userId: "u", presenceTimeout: 30, heartbeatInterval: 5),
            transport: transport, sleeper: sleeper, random: { 0 })
        await client.subscribe(to: ["c"], and: ["g"])
        // The sleeper returns at once: the heartbeats may go out before the handshake does.
        await waitUntil { transport.others.count >= 2 && !transport.sent.isEmpty }
        let beat = try XCTUnwrap(transport.others.first)
        XCTAssertTrue(beat.path.hasSuffix("/channel/c/heartbeat"), beat.path)
        XCTAssertTrue(beat.query?.contains("heartbeat=30") ?? false)
        XCTAssertTrue(beat.query?.contains("channel-group=g") ?? false)
        XCTAssertEqual(Set(sleeper.gaps), [5])
        XCTAssertTrue(transport.sent.last?.query?.contains("heartbeat=30") ?? false, "subscribe carries the timeout")
        await client.unsubscribeAll()
        let leave = try XCTUnwrap(transport.others.last)
        XCTAssertTrue(leave.path.hasSuffix("/channel/c/leave"), leave.path)
    }

    func testDedupeCacheIsBounded() {
        var cache = DedupeCache(capacity: 3)
        XCTAssertTrue(cache.insert("a"))
        XCTAssertFalse(cache.insert("a"))
        for key in ["b", "c", "d"] { XCTAssertTrue(cache.insert(key)) }
        XCTAssertEqual(cache.count, 3)
        XCTAssertTrue(cache.insert("a"), "the oldest key was evicted")
    }

    func testRecoversAcrossANodeRestartDeliveringEachMessageOnce() async throws {
        let first = try await TestNode.start()
        let port = first.port
        let clock = ManualClock()
        let subscriber = first.client(userId: "sub", retryPolicy: RetryPolicy(initialDelay: 1, maximumDelay: 1, jitter: 0),
                                      sleeper: clock)
        let recorder = EventRecorder()
        subscriber.addListener(recorder)
        await subscribeConnected(subscriber, recorder, to: ["durable"])
        try await first.client(userId: "pub").publish(channel: "durable", message: 0)
        await waitUntil { recorder.messages.count == 1 }
        try await first.shutdown()
        await waitUntil { await subscriber.connectionStatus == .reconnecting }
        let second = try await TestNode.start(port: port)
        let publisher = second.client(userId: "pub")
        for index in 1...5 {
            try await publisher.publish(channel: "durable", message: index)
        }
        let retried = await clock.advanceToSleeper(dueIn: .seconds(1))
        XCTAssertTrue(retried, "the retry waits its 1 s gap: \(clock.deadlines)")
        await waitUntil(10, "catch-up") { recorder.messages.count >= 6 }
        // A last message fences the check: anything delivered twice would arrive before it.
        try await publisher.publish(channel: "durable", message: 6)
        await waitUntil(10, "the fence") { recorder.messages.count >= 7 }
        XCTAssertEqual(recorder.messages.compactMap { try? $0.decode(Int.self) }, [0, 1, 2, 3, 4, 5, 6])
        XCTAssertEqual(recorder.statuses, [.connecting, .connected, .reconnecting, .connected])
        // Unsubscribing right after a poll went out repeats the leave 250 ms later, on this clock.
        let leaving = Task { await subscriber.unsubscribeAll() }
        let settled = await clock.advanceToSleeper(dueIn: .milliseconds(250))
        XCTAssertTrue(settled, "\(clock.deadlines)")
        await leaving.value
        try await second.shutdown()
    }
}
