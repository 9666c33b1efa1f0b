import PubNodeCore
@testable import PubNodeRedis
import XCTest

/// Names of cluster topics: parsed back exactly, hostile names refused, globs escaped.
final class ClusterTopicTests: XCTestCase {
    private let log = RedisChannelLog()

    func testNamesParseBackWhateverTheKeyAndChannelHold() {
        for (key, channel) in [("demo", "c"), ("sub:with:colons", "a:b"), ("ключ", "канал.1"), ("k", ""), ("x", "m:1:y:z")] {
            let name = log.topic(key, channel)
            XCTAssertEqual(ClusterTopic.parse(redisChannel: name, prefix: "pubnode").map { [$0.subscribeKey, $0.channel] },
                           [key, channel], name)
            XCTAssertEqual(log.parseStreamKey(log.streamKey(key, channel)).map { [$0.subscribeKey, $0.channel] }, [key, channel])
        }
    }

    func testMalformedNamesAreRefused() {
        for name in ["", "pubnode:m:", "pubnode:m:4", "pubnode:m:4:demo", "pubnode:m:9:demo:c", "pubnode:m:x:demo:c",
                     "pubnode:s:4:demo:c", "other:m:4:demo:c", "pubnode:m:99999999999999999999:d:c"] {
            XCTAssertNil(ClusterTopic.parse(redisChannel: name, prefix: "pubnode"), name)
        }
    }

    func testPatternGlobsEscapeRedisSpecialCharacters() {
        let plain = ClusterTopic.pattern(subscribeKey: "demo", pattern: "a.*").redisName(log, stream: false)
        XCTAssertEqual(plain, "pubnode:m:4:demo:a.*")
        let hostile = ClusterTopic.pattern(subscribeKey: "d[*]", pattern: "q?\\.*-pnpres").redisName(log, stream: true)
        XCTAssertEqual(hostile, #"pubnode:s:4:d\[\*\]:q\?\\.*-pnpres"#)
    }
}
