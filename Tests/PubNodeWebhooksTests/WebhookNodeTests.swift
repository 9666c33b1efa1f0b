import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PubNodeCore
import PubNodeHistorySQLite
@testable import PubNodeServer
import PubNodeTestSupport
import PubNodeWebhooks
import XCTest

/// Hooks seen from the wire: through the router, over a real socket, and across a restart.
final class WebhookNodeTests: WebhookTestCase {
    struct Answer {
        var status: Int
        var body: String
        var contentType: String?
    }

    /// Routes one request and waits for its answer, deferred or not.
    func call(_ router: Router, _ method: HTTPMethod, _ uri: String, body: String? = nil,
              headers: [String: String] = [:]) async throws -> Answer {
        var request = try PubNubRequest(method: method, uri: uri, body: body.map { ByteBuffer(string: $0) })
        request.headers = headers
        guard let reply = await router.answer(request) else { throw XCTSkip("not a subscribe test") }
        return Answer(status: Int(reply.status.code), body: String(buffer: reply.body), contentType: reply.contentType)
    }

    func testReceiverFailingTwiceGetsTheEventOnTheThirdAttempt() async throws {
        let receiver = try receiver { _, count in .init(status: count <= 2 ? 500 : 200) }
        let clock = ManualClock()
        let engine = try engine([spec("flaky", .afterPublish, receiver.url)], nodeClock: clock)
        let node = Node(hooks: engine)
        _ = try await node.publish(request("orders", #"{"id":7}"#))
        let firstRetry = await clock.advanceToSleeper(dueIn: .milliseconds(5))
        XCTAssertTrue(firstRetry, "the first retry waits half the 10 ms base: \(clock.deadlines)")
        let secondRetry = await clock.advanceToSleeper(dueIn: .milliseconds(10))
        XCTAssertTrue(secondRetry, "the second twice as long: \(clock.deadlines)")
        let got = await receiver.waitFor(3)
        XCTAssertEqual(got.map { $0.headers["x-pubnode-attempt"] }, ["1", "2", "3"])
        XCTAssertEqual(Set(got.map { $0.headers["x-pubnode-delivery"] }).count, 1, "one delivery id across retries")
        XCTAssertEqual(Set(got.map(\.body)).count, 1, "the same body each time")
        let delivered = await eventually { engine.stats().first?.counters.delivered == 1 }
        XCTAssertTrue(delivered)
        XCTAssertEqual(engine.stats().first?.counters.retries, 2)
        let stats = try XCTUnwrap(engine.stats().first)
        XCTAssertEqual(stats.pending + stats.inFlight, 0, "nothing is left to send after the success")
        XCTAssertEqual(receiver.requests.count, 3, "nothing is sent after the success")
        await engine.shutdown()
    }

    func testBatchedDeliveriesCarryEveryEventWithItsId() async throws {
        let receiver = try receiver { _, count in .init(status: count == 1 ? 503 : 200) }
        var batched = spec("batched", .afterPublish, receiver.url)
        batched.delivery.maxBatch = 50
        batched.delivery.concurrency = 1
        let clock = ManualClock()
        let engine = try engine([batched], store: nil, nodeClock: clock)
        let node = Node(hooks: engine)
        for index in 0..<20 { _ = try await node.publish(request("c", String(index))) }
        // Time moves in 1 ms steps: batches gather for 2 ms, the failed one is retried 5 ms later.
        let delivered = await clock.advance(by: .milliseconds(1)) { engine.stats().first?.counters.delivered == 20 }
        XCTAssertTrue(delivered, "\(engine.stats())")
        var ids = Set<String>()
        var messages: [Int] = []
        for call in receiver.requests.dropFirst() {
            XCTAssertTrue(WebhookSignature.verify(call.body, secret: "s3cret", signature: call.headers["x-pubnode-signature"] ?? ""))
            let body = try json(call)
            // A batch of one travels as a plain event, its id in the header.
            let batch = body["batch"] as? [[String: Any]] ?? [["id": call.headers["x-pubnode-delivery"] ?? "", "event": body]]
            XCTAssertEqual(call.headers["x-pubnode-batch"].flatMap(Int.init) ?? 1, batch.count)
            for item in batch {
                ids.insert(try XCTUnwrap(item["id"] as? String))
                messages.append(try XCTUnwrap((item["event"] as? [String: Any])?["message"] as? Int))
            }
        }
        XCTAssertEqual(Set(messages), Set(0..<20), "every event arrived after the failed first batch was retried")
        XCTAssertEqual(ids.count, 20)
        XCTAssertLessThan(receiver.requests.count, 20, "events travelled together")
        await engine.shutdown()
    }

    func testOutboxSurvivesARestartInTheHistoryDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pubnode-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(HistoryDatabase.fileName).path
        let receiver = try receiver { _, _ in .init(status: 503) }
        var patient = spec("patient", .afterPublish, receiver.url, channels: ["orders"])
        patient.delivery.baseDelay = .seconds(600)
        patient.delivery.maxDelay = .seconds(600)
        var fragile = spec("fragile", .afterPublish, receiver.url, channels: ["audit"])
        fragile.delivery.maxAttempts = 1

        var ids: Set<String?> = []
        do {
            let store = SQLiteHookOutboxStore(database: try HistoryDatabase.file(path: path))
            let engine = try engine([patient, fragile], store: store)
            let node = Node(hooks: engine)
            _ = try await node.publish(request("orders", "1"))
            _ = try await node.publish(request("orders", "2"))
            _ = try await node.publish(request("audit", "3"))
            let saved = await eventually {
                let rows = (try? store.load()) ?? []
                return rows.filter { $0.attempts == 1 }.count == 3 && rows.contains(where: \.dead)
            }
            XCTAssertTrue(saved, "\(String(describing: try? store.load()))")
            ids = Set(receiver.requests.filter { $0.text.contains(#""channel":"orders""#) }.map { $0.headers["x-pubnode-delivery"] })
            await engine.shutdown()
        }
        receiver.respond { _, _ in .init(status: 200) }
        let before = receiver.requests.count
        let store = SQLiteHookOutboxStore(database: try HistoryDatabase.file(path: path))
        let engine = try engine([patient, fragile], store: store)
        let redelivered = await receiver.waitFor(before + 2)
        let again = redelivered.dropFirst(before)
        XCTAssertEqual(Set(again.map { $0.headers["x-pubnode-delivery"] }), ids, "the same events, by id, after the restart")
        XCTAssertEqual(again.map { $0.headers["x-pubnode-attempt"] }, ["2", "2"])
        XCTAssertEqual(engine.deadLetters(hook: "fragile").count, 1, "dead letters survive too")
        let replayed = await engine.replay(hook: "fragile")
        XCTAssertEqual(replayed, 1)
        let emptied = await eventually { ((try? store.load()) ?? []).isEmpty }
        XCTAssertTrue(emptied, "delivered events leave the database")
        await engine.shutdown()
    }

    func testFireReachesWebhooksButNeverSubscribers() async throws {
        let receiver = try receiver()
        let engine = try engine([spec("fires", .afterPublish, receiver.url)])
        let router = Router(node: Node(hooks: engine))
        let answer = try await call(router, .GET, "/publish/demo/demo/0/ops/0/%7B%22cmd%22%3A1%7D?store=0&norep=true&uuid=bot")
        XCTAssertEqual(answer.status, 200)
        XCTAssertTrue(answer.body.hasPrefix(#"[1,"Sent",""#), answer.body)
        let got = await receiver.waitFor(1)
        let event = try json(try XCTUnwrap(got.first))
        XCTAssertEqual(event["action"] as? String, "fire")
        XCTAssertEqual((event["message"] as? [String: Any])?["cmd"] as? Int, 1)
        XCTAssertEqual(try buffered(router.node, "ops"), [], "a fire is not buffered, so no subscriber can receive it")
        let history = try await call(router, .GET, "/v2/history/sub-key/demo/channel/ops")
        XCTAssertFalse(history.body.contains("cmd"), history.body)
        await engine.shutdown()
    }

    func testAbortOverARealSocketIsAPubNubShapedError() async throws {
        let receiver = try receiver { request, _ in
            request.text.contains("spam") ? .init(body: #"{"action":"abort","status":403,"text":"No spam"}"#) : .init()
        }
        let engine = try engine([spec("guard", .beforePublish, receiver.url)])
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 1
        let server = PubNodeHTTPServer(configuration: configuration, node: Node(hooks: engine))
        let port = try await server.start()
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        func get(_ path: String) async throws -> (Int, String) {
            let response = try await http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(5))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 16)))
        }
        let (refusedStatus, refused) = try await get("/publish/demo/demo/0/chat/0/%22spam%22")
        XCTAssertEqual(refusedStatus, 403)
        XCTAssertTrue(refused.hasPrefix(#"[0,"No spam",""#), refused)
        let (okStatus, ok) = try await get("/publish/demo/demo/0/chat/0/%22hello%22")
        XCTAssertEqual(okStatus, 200)
        XCTAssertTrue(ok.hasPrefix(#"[1,"Sent",""#), ok)
        let (timeStatus, _) = try await get("/time/0")
        XCTAssertEqual(timeStatus, 200, "the connection keeps serving after a deferred answer")
        try await http.shutdown()
        try await server.shutdown()
    }

    func testOnRequestWebhookAnswersBlocksCalls() async throws {
        let receiver = try receiver { _, _ in .init(status: 201, body: "pong", headers: [("Content-Type", "text/plain")]) }
        var echo = spec("echo", .onRequest, receiver.url, channels: ["tools/echo"])
        echo.delivery = HookBinding.DeliverySettings()
        let engine = try engine([echo, spec("down", .onRequest, "http://127.0.0.1:1/", channels: ["down"], timeoutMs: 200)])
        let router = Router(node: Node(hooks: engine))
        let answer = try await call(router, .POST, "/v1/blocks/sub-key/demo/tools/echo?x=1", body: "ping",
                                    headers: ["content-type": "text/plain", "authorization": "Bearer secret"])
        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(answer.body, "pong")
        XCTAssertEqual(answer.contentType, "text/plain")
        let event = try json(try XCTUnwrap(receiver.requests.first))
        XCTAssertEqual(event["event"] as? String, "on-request")
        XCTAssertEqual(event["method"] as? String, "POST")
        XCTAssertEqual(event["path"] as? String, "tools/echo")
        XCTAssertEqual((event["query"] as? [String: String])?["x"], "1")
        XCTAssertEqual((event["headers"] as? [String: String])?["content-type"], "text/plain")
        XCTAssertNil((event["headers"] as? [String: String])?["authorization"], "credentials are not forwarded")
        XCTAssertEqual(event["body"] as? String, "ping")

        let missing = try await call(router, .GET, "/v1/blocks/sub-key/demo/nothing")
        XCTAssertEqual(missing.status, 404)
        XCTAssertTrue(missing.body.contains(#""error":true"#), missing.body)
        let badKey = try await call(router, .GET, "/v1/blocks/sub-key/nope/tools/echo")
        XCTAssertEqual(badKey.status, 400)
        let down = try await call(router, .GET, "/v1/blocks/sub-key/demo/down")
        XCTAssertTrue([502, 504].contains(down.status), "\(down)")
        XCTAssertTrue(down.body.contains("Hook down failed"), down.body)
        XCTAssertFalse(down.body.contains("127.0.0.1") || down.body.contains("errno"), "no internal details leak: \(down.body)")
    }

    func testAdminEndpointsShowQueuesAndReplayDeadLetters() async throws {
        let receiver = try receiver { _, _ in .init(status: 500) }
        var hook = spec("billing", .afterPublish, receiver.url)
        hook.delivery.maxAttempts = 1
        let engine = try engine([hook])
        let token = "0123456789abcdef-token"
        let router = Router(node: Node(adminToken: token, hooks: engine))
        let auth = ["authorization": "Bearer \(token)"]
        _ = try await router.node.publish(request("c", "1"))
        let dead = await eventually { engine.deadLetters().count == 1 }
        XCTAssertTrue(dead)

        let closed = try await call(Router(node: Node(hooks: engine)), .GET, "/v1/admin/hooks", headers: auth)
        XCTAssertEqual(closed.status, 403, "no token configured: admin is off")
        let wrong = try await call(router, .GET, "/v1/admin/hooks", headers: ["authorization": "Bearer nope"])
        XCTAssertEqual(wrong.status, 401)

        let stats = try await call(router, .GET, "/v1/admin/hooks", headers: auth)
        let hooks = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(stats.body.utf8)) as? [String: Any])?["hooks"] as? [[String: Any]])
        XCTAssertEqual(hooks.first?["name"] as? String, "billing")
        XCTAssertEqual(hooks.first?["deadLettered"] as? Int, 1)
        XCTAssertEqual(hooks.first?["deadLetters"] as? Int, 1)

        let letters = try await call(router, .GET, "/v1/admin/hooks/dead-letters?hook=billing", headers: auth)
        let list = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(letters.body.utf8)) as? [String: Any])?["deadLetters"] as? [[String: Any]])
        XCTAssertEqual(list.count, 1)
        XCTAssertEqual(list.first?["lastError"] as? String, "answered HTTP 500")
        XCTAssertEqual((list.first?["event"] as? [String: Any])?["channel"] as? String, "c")
        let id = try XCTUnwrap(list.first?["id"] as? String)

        let unknown = try await call(router, .GET, "/v1/admin/hooks/dead-letters?hook=nope", headers: auth)
        XCTAssertEqual(unknown.status, 404)
        let badID = try await call(router, .POST, "/v1/admin/hooks/replay?id=abc", headers: auth)
        XCTAssertEqual(badID.status, 400)

        receiver.respond { _, _ in .init(status: 200) }
        let replay = try await call(router, .POST, "/v1/admin/hooks/replay?hook=billing&id=\(id)", headers: auth)
        XCTAssertEqual(replay.body, #"{"status":200,"service":"Hooks","replayed":1}"#)
        let delivered = await eventually { engine.stats().first?.counters.delivered == 1 }
        XCTAssertTrue(delivered)
        await engine.shutdown()
    }
}
