import NIOCore
import NIOPosix
@testable import PubNodeRedis
import XCTest

/// The decoder against what a real `redis-server` writes: random binary strings of every size and
/// random nested arrays built by a Lua script, read back through pipelined commands.
final class RESPDifferentialTests: RedisServerTestCase {
    func testRandomRepliesDecodeToWhatWasStored() async throws {
        let redis = try await RedisConnection.connect(to: RedisAddress(url: server.url), on: MultiThreadedEventLoopGroup.singleton)
        var random = SplitMix(seed: 0x5EED)
        // Binary strings, sizes from empty to 300 KiB (several reads each), every byte value.
        var expected: [ByteBuffer] = []
        for index in 0..<200 {
            let size = index % 50 == 0 ? Int(random.next() % 300_000) : Int(random.next() % 600)
            let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            expected.append(ByteBuffer(bytes: bytes))
            _ = redis.sendCommand(["SET", .text("bin:\(index)"), .bytes(ByteBuffer(bytes: bytes))])
        }
        let reads = (0..<expected.count).map { redis.sendCommand(["GET", .text("bin:\($0)")]) }
        for (index, read) in reads.enumerated() {
            let value = try await read.get()
            XCTAssertEqual(value, .bulkString(expected[index]), "string \(index)")
        }
        // Nested arrays: Lua tables of integers, strings and tables, returned as RESP arrays.
        let echo = RedisScript("return cjson.decode(ARGV[1])")
        for round in 0..<100 {
            let tree = Self.tree(&random, depth: 0)
            let value = try await echo.run(on: redis, keys: [], arguments: [.text(tree.json)]).get()
            XCTAssertEqual(value, tree.resp, "round \(round): \(tree.json)")
        }
        await redis.close()
    }

    /// A random value as JSON for Lua and as the reply Redis makes of it.
    private static func tree(_ random: inout SplitMix, depth: Int) -> (json: String, resp: RESPValue) {
        switch random.next() % (depth < 4 ? 3 : 2) {
        case 0:
            let number = Int64(random.next() % 2_000_000) - 1_000_000
            return (String(number), .integer(number))
        case 1:
            let text = String((0..<Int(random.next() % 12)).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) })
            return ("\"\(text)\"", .bulkString(ByteBuffer(string: text)))
        default:
            let children = (0..<Int(1 + random.next() % 5)).map { _ in tree(&random, depth: depth + 1) }
            return ("[" + children.map(\.json).joined(separator: ",") + "]", .array(children.map(\.resp)))
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failure reproduces.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
