import Foundation
import PubNodeCore
import PubNodeTestSupport
import PubNodeWebhooks
import XCTest

/// Helpers for hook tests: local receivers, engines on webhook clients, requests.
class WebhookTestCase: XCTestCase {
    var receivers: [TestReceiver] = []
    var clients: [WebhookClient] = []
    var webhooks: [WebhookHooks] = []

    override func tearDown() async throws {
        for client in clients { await client.shutdown() }
        for hooks in webhooks { await hooks.shutdown() }
        for receiver in receivers { receiver.stop() }
    }

    func receiver(_ respond: @escaping @Sendable (TestReceiver.Request, Int) -> TestReceiver.Answer = { _, _ in .init() })
        throws -> TestReceiver {
        let receiver = try TestReceiver(respond: respond)
        receivers.append(receiver)
        return receiver
    }

    /// A started engine for `specs`; `nodeClock` is what retries wait on (a manual clock in the
    /// tests of retries), and retry delays have no jitter spread: half of 10, 20, 40 ms.
    func engine(_ specs: [HookSpec], store: (any HookOutboxStore)? = nil, allow: [String] = [],
                nodeClock: any NodeClock = SystemNodeClock()) throws -> HookEngine {
        let hooks = try WebhookHooks.make(specs, allowList: HostAllowList(allow))
        webhooks.append(hooks)
        let engine = try HookEngine(bindings: hooks.bindings, store: store, nodeClock: nodeClock, random: { 0 })
        try engine.start()
        return engine
    }

    func spec(_ name: String, _ trigger: HookTrigger, _ url: String, channels: [String] = ["*"], secret: String? = "s3cret",
              timeoutMs: Int = 1000, policy: HookBinding.FailurePolicy = .failClosed) -> HookSpec {
        var spec = HookSpec(name: name, trigger: trigger, subscribeKey: "demo", channels: channels, url: url, secret: secret)
        spec.timeoutMilliseconds = timeoutMs
        spec.policy = policy
        spec.delivery.baseDelay = .milliseconds(10)
        spec.delivery.maxDelay = .milliseconds(40)
        return spec
    }

    func request(_ channel: String, _ payload: String, meta: String? = nil, fire: Bool = false,
                 kind: MessageKind = .message) -> PublishRequest {
        PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: channel, payload: Array(payload.utf8),
                       meta: meta.map { Array($0.utf8) }, uuid: "alice", kind: kind, store: fire ? false : nil,
                       noReplication: fire, customMessageType: "chat-text")
    }

    func json(_ request: TestReceiver.Request) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
    }

    func buffered(_ node: Node, _ channel: String) throws -> [String] {
        let subscription = Subscription(channels: [channel], wildcards: [], groups: [])
        let hub = try XCTUnwrap((node.broker as? MemoryBroker)?.hub("demo"))
        return hub.collect(subscription, after: .zero).deliveries
            .map { String(decoding: $0.message.payload, as: UTF8.self) }
    }

}

/// Webhooks against a local receiver: signatures, payloads, decisions, failures and retries.
final class WebhookHookTests: WebhookTestCase {
    func testAfterPublishWebhookIsSignedAndCarriesTheEvent() async throws {
        let receiver = try receiver()
        let engine = try engine([spec("audit", .afterPublish, receiver.url, channels: ["chat.*"])])
        let node = Node(hooks: engine)
        let payload = #"{"text":"hi","big":123456789012345678901234567890}"#
        let result = try await node.publish(request("chat.lobby", payload, meta: #"{"lang":"en"}"#))
        _ = try await node.publish(request("elsewhere", "1"))
        let got = await receiver.waitFor(1)
        XCTAssertEqual(got.count, 1)
        let hit = try XCTUnwrap(got.first)
        XCTAssertEqual(hit.method, "POST")
        XCTAssertEqual(hit.headers["content-type"], "application/json")
        XCTAssertEqual(hit.headers["x-pubnode-hook"], "audit")
        XCTAssertEqual(hit.headers["x-pubnode-event"], "after-publish")
        XCTAssertEqual(hit.headers["x-pubnode-attempt"], "1")
        XCTAssertNotNil(hit.headers["x-pubnode-delivery"].flatMap(UInt64.init))
        let signature = try XCTUnwrap(hit.headers["x-pubnode-signature"])
        XCTAssertTrue(WebhookSignature.verify(hit.body, secret: "s3cret", signature: signature))
        XCTAssertFalse(WebhookSignature.verify(hit.body, secret: "wrong", signature: signature))
        XCTAssertTrue(hit.text.contains(#""message":\#(payload)"#), "the payload is relayed byte-exact: \(hit.text)")
        let event = try json(hit)
        XCTAssertEqual(event["event"] as? String, "after-publish")
        XCTAssertEqual(event["action"] as? String, "publish")
        XCTAssertEqual(event["subscribeKey"] as? String, "demo")
        XCTAssertEqual(event["channel"] as? String, "chat.lobby")
        XCTAssertEqual(event["publisher"] as? String, "alice")
        XCTAssertEqual(event["timetoken"] as? String, result.timetoken.description)
        XCTAssertEqual(event["customMessageType"] as? String, "chat-text")
        XCTAssertEqual((event["meta"] as? [String: Any])?["lang"] as? String, "en")
        let delivered = await eventually { engine.stats().first?.counters.delivered == 1 }
        XCTAssertTrue(delivered)
        let stats = try XCTUnwrap(engine.stats().first)
        XCTAssertEqual(stats.counters.enqueued, 1, "a channel outside the binding is not queued")
        XCTAssertEqual(stats.pending + stats.inFlight, 0, "so nothing is left to send")
        XCTAssertEqual(receiver.requests.count, 1, "a channel outside the binding is not sent")
        await engine.shutdown()
    }

    func testBeforePublishWebhookModifiesOrAborts() async throws {
        let receiver = try receiver { request, _ in
            if request.text.contains("badword") { return .init(body: #"{"action":"abort","status":403,"text":"Language!"}"#) }
            if request.text.contains("shout") {
                return .init(body: #"{"action":"modify","message":{"text":"SHOUT"},"meta":{"moderated":true}}"#)
            }
            return .init(status: 204)
        }
        let engine = try engine([spec("moderate", .beforePublish, receiver.url)])
        let node = Node(hooks: engine)
        let modified = try await node.publish(request("room", #"{"text":"shout"}"#))
        XCTAssertEqual(String(decoding: modified.message.payload, as: UTF8.self), #"{"text":"SHOUT"}"#)
        XCTAssertEqual(modified.message.meta.map { String(decoding: $0, as: UTF8.self) }, #"{"moderated":true}"#)
        _ = try await node.publish(request("room", #"{"text":"fine"}"#))
        do {
            _ = try await node.publish(request("room", #"{"text":"badword"}"#))
            XCTFail("the hook aborts")
        } catch {
            XCTAssertEqual(error, .refusedByHook(status: 403, text: "Language!"))
        }
        XCTAssertEqual(try buffered(node, "room"), [#"{"text":"SHOUT"}"#, #"{"text":"fine"}"#])
        let first = try json(try XCTUnwrap(receiver.requests.first))
        XCTAssertEqual(first["event"] as? String, "before-publish")
        XCTAssertNil(first["timetoken"], "a before event has no timetoken yet")
        let signature = try XCTUnwrap(receiver.requests.first?.headers["x-pubnode-signature"])
        XCTAssertTrue(WebhookSignature.verify(receiver.requests[0].body, secret: "s3cret", signature: signature))
    }

    func testSlowBeforeWebhookAppliesItsPolicy() async throws {
        let receiver = try receiver { _, _ in .init(body: #"{"action":"abort"}"#, delayMilliseconds: 1500) }
        let engine = try engine([
            spec("open", .beforePublish, receiver.url, channels: ["open"], timeoutMs: 100, policy: .failOpen),
            spec("closed", .beforePublish, receiver.url, channels: ["closed"], timeoutMs: 100, policy: .failClosed),
        ])
        let node = Node(hooks: engine)
        let started = ContinuousClock.now
        _ = try await node.publish(request("open", "1"))
        XCTAssertEqual(try buffered(node, "open"), ["1"], "fail-open lets the message through unchanged")
        do {
            _ = try await node.publish(request("closed", "1"))
            XCTFail("fail-closed refuses")
        } catch {
            guard case .refusedByHook(503, let text) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(text.contains("timed out"), text)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1), "each call gave up at its 100 ms timeout")
    }

    func testBadRepliesAreFailuresNotCrashes() async throws {
        let huge = String(repeating: "x", count: 200_000)
        let receiver = try receiver { request, _ in
            if request.text.contains("redirect") { return .init(status: 302, headers: [("Location", "http://169.254.169.254/")]) }
            if request.text.contains("huge") { return .init(body: #"{"action":"pass","pad":""# + huge + #""}"#) }
            if request.text.contains("garbage") { return .init(body: "<html>oops</html>") }
            return .init(status: 500)
        }
        var tight = spec("strict", .beforePublish, receiver.url)
        tight.maxReplyBytes = 1024
        let engine = try engine([tight])
        let node = Node(hooks: engine)
        for (payload, expected) in [(#""redirect""#, "HTTP 302"), (#""huge""#, "reply too large"),
                                    (#""garbage""#, "malformed reply"), (#""other""#, "HTTP 500")] {
            do {
                _ = try await node.publish(request("c", payload))
                XCTFail("\(payload) must be refused under fail-closed")
            } catch {
                guard case .refusedByHook(503, let text) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(text.contains(expected), "\(payload): \(text)")
            }
        }
        XCTAssertEqual(receiver.requests.count, 4, "the redirect was not followed")
        XCTAssertEqual(try buffered(node, "c"), [])
    }

    func testAfterWebhookDeliveryNeedsOnlyA2xxStatus() async throws {
        let huge = String(repeating: "y", count: 300_000)
        let receiver = try receiver { _, _ in .init(status: 202, body: huge) }
        var audit = spec("audit", .afterPublish, receiver.url)
        audit.maxReplyBytes = 16
        let engine = try engine([audit])
        _ = try await Node(hooks: engine).publish(request("c", "1"))
        let delivered = await eventually { engine.stats().first?.counters.delivered == 1 }
        XCTAssertTrue(delivered, "a large reply body to an after hook is read and ignored: \(engine.stats())")
        XCTAssertEqual(engine.stats().first?.counters.retries, 0)
        await engine.shutdown()
    }

    func testAllowListAndSchemesAreCheckedAtStartUp() throws {
        let client = WebhookClient(allowList: HostAllowList(["hooks.example.com", "*.internal.example"]))
        clients.append(client)
        XCTAssertNoThrow(try client.check("https://hooks.example.com/x"))
        XCTAssertNoThrow(try client.check("http://a.internal.example:8080/x"))
        XCTAssertThrowsError(try client.check("http://127.0.0.1:9/x"))
        XCTAssertThrowsError(try client.check("http://internal.example.evil.com/x"))
        XCTAssertThrowsError(try client.check("file:///etc/passwd"))
        XCTAssertThrowsError(try WebhookHooks.make([spec("x", .afterPublish, "http://127.0.0.1:9/")],
                                                    allowList: client.allowList)) { error in
            XCTAssertTrue("\(error)".contains("allow-list"), "\(error)")
        }
        XCTAssertTrue(HostAllowList().allows(host: "anything"), "an empty list allows every host")
    }

    func testUnreachableAfterWebhookNeverSlowsThePublisher() async throws {
        // A refused connection is retried by the client until the call's deadline.
        let engine = try engine([spec("gone", .afterPublish, "http://127.0.0.1:1/hook", timeoutMs: 100)])
        let node = Node(hooks: engine)
        let clock = ContinuousClock()
        var slowest = Duration.zero
        for index in 0..<50 {
            let started = clock.now
            _ = try await node.publish(request("c", String(index)))
            slowest = max(slowest, clock.now - started)
        }
        XCTAssertLessThan(slowest, .milliseconds(50))
        let retried = await eventually { (engine.stats().first?.counters.retries ?? 0) >= 50 }
        XCTAssertTrue(retried, "\(engine.stats())")
        XCTAssertEqual(try buffered(node, "c").count, 50)
        await engine.shutdown()
    }
}
