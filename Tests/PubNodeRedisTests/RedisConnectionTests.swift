import NIOCore
import NIOPosix
@testable import PubNodeRedis
import XCTest

/// The connections against a real `redis-server`.
final class RedisConnectionTests: RedisServerTestCase {
    func testCommandsRoundTripBinarySafe() async throws {
        let redis = try await connect()
        let payload = ByteBuffer(bytes: [0, 13, 10, 255, 36, 42])
        let value1 = try await redis.send(["SET", "k", .bytes(payload)])
        XCTAssertEqual(value1, .simpleString("OK"))
        let value2 = try await redis.send(["GET", "k"])
        XCTAssertEqual(value2, .bulkString(payload))
        let value3 = try await redis.send(["GET", "missing"])
        XCTAssertEqual(value3, .null)
        let value4 = try await redis.send(["INCRBY", "n", .integer(5)])
        XCTAssertEqual(value4, .integer(5))
        await XCTAssertThrowsReply(try await redis.send(["INCR", "k"]), prefix: "ERR")
        let value5 = try await redis.send(["PING"])
        XCTAssertEqual(value5, .simpleString("PONG"), "an error reply leaves the connection usable")
        await redis.close()
    }

    func testThousandsOfPipelinedCommandsAreAnsweredInOrder() async throws {
        let redis = try await connect()
        let futures = (0..<5_000).map { index in redis.sendCommand(["ECHO", .integer(Int64(index))]) }
        for (index, future) in futures.enumerated() {
            let value6 = try await future.get().int
            XCTAssertEqual(value6, Int64(index))
        }
        await redis.close()
    }

    func testAScriptRunsByShaAfterItsFirstRunAndSurvivesAFlush() async throws {
        let redis = try await connect()
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        let value7 = try await script.run(on: redis, keys: ["counter"], arguments: [.integer(2)]).get()
        XCTAssertEqual(value7, .integer(2))
        let value8 = try await redis.send(["SCRIPT", "EXISTS", .text(script.sha)])
        XCTAssertEqual(value8, .array([.integer(1)]),
                       "EVAL loaded it under the SHA-1 computed here")
        _ = try await redis.send(["SCRIPT", "FLUSH"])
        let value9 = try await script.run(on: redis, keys: ["counter"], arguments: [.integer(3)]).get()
        XCTAssertEqual(value9, .integer(5))
        await redis.close()
    }

    func testPendingCommandsFailWhenTheServerGoesAway() async throws {
        let redis = try await connect()
        let blocked = redis.sendCommand(["BLPOP", "never", "0"])
        server.stop()
        do {
            _ = try await blocked.get()
            XCTFail("a command in flight on a closed connection must fail")
        } catch {
            XCTAssertEqual(error as? RedisError, .connectionClosed)
        }
        do {
            _ = try await redis.send(["PING"])
            XCTFail("a closed connection refuses commands")
        } catch {}
        XCTAssertFalse(redis.isActive)
    }

    func testSubscriberReceivesMessagesAfterItsSubscriptionIsConfirmed() async throws {
        let received = AsyncStream<RedisPushMessage>.makeStream()
        let subscriber = try await RedisSubscriber.connect(to: RedisAddress(url: server.url), on: group) { message in
            received.continuation.yield(message)
        }
        try await subscriber.subscribe(["a", "b"]).get()
        try await subscriber.psubscribe(["news.*"]).get()
        let redis = try await connect()
        let value10 = try await redis.send(["PUBLISH", "a", "one"])
        XCTAssertEqual(value10, .integer(1), "one subscriber confirmed before the publish")
        _ = try await redis.send(["PUBLISH", "news.sport", "two"])
        try await subscriber.unsubscribe(["a"]).get()
        let value11 = try await redis.send(["PUBLISH", "a", "dropped"])
        XCTAssertEqual(value11, .integer(0))
        _ = try await redis.send(["PUBLISH", "b", "three"])
        var iterator = received.stream.makeAsyncIterator()
        var seen: [String] = []
        for _ in 0..<3 {
            let next = await iterator.next()
            let message = try XCTUnwrap(next)
            seen.append("\(message.pattern ?? "-") \(message.channel) \(String(buffer: message.payload))")
        }
        XCTAssertEqual(seen, ["- a one", "news.* news.sport two", "- b three"])
        await subscriber.close()
        await redis.close()
    }

    func testAuthenticationAndDatabaseSelection() async throws {
        let redis = try await connect()
        _ = try await redis.send(["CONFIG", "SET", "requirepass", "s3cret"])
        await redis.close()
        do {
            let anonymous = try await connect()
            _ = try await anonymous.send(["GET", "x"])
            XCTFail("a password is now required")
        } catch {}
        let url = "redis://:s3cret@127.0.0.1:\(server.port)/3"
        let authed = try await RedisConnection.connect(to: RedisAddress(url: url), on: group)
        _ = try await authed.send(["SET", "where", "three"])
        let value12 = try await authed.send(["CLIENT", "INFO"]).string?.contains("db=3")
        XCTAssertEqual(value12, true)
        await authed.close()
        await XCTAssertThrowsReplyAsync(prefix: "WRONGPASS") {
            _ = try await RedisConnection.connect(to: RedisAddress(url: "redis://:nope@127.0.0.1:\(self.server.port)"), on: self.group)
        }
    }
}

func XCTAssertThrowsReply<T>(_ body: @autoclosure () async throws -> T, prefix: String,
                             file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await body()
        XCTFail("expected an error reply", file: file, line: line)
    } catch RedisError.reply(let text) {
        XCTAssertTrue(text.hasPrefix(prefix), text, file: file, line: line)
    } catch {
        XCTFail("unexpected \(error)", file: file, line: line)
    }
}

func XCTAssertThrowsReplyAsync(prefix: String, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () async throws -> Void) async {
    do {
        try await body()
        XCTFail("expected an error reply", file: file, line: line)
    } catch RedisError.reply(let text) {
        XCTAssertTrue(text.hasPrefix(prefix), text, file: file, line: line)
    } catch {
        XCTFail("unexpected \(error)", file: file, line: line)
    }
}
