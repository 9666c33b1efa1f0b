import NIOCore
import NIOEmbedded
@testable import PubNodeRedis
import XCTest

final class RESPDecoderTests: XCTestCase {
    private func decodeAll(_ text: String, bounds: RESPDecoder.Bounds = .init()) throws -> [RESPValue] {
        var decoder = RESPDecoder(bounds: bounds)
        var buffer = ByteBuffer(string: text)
        var values: [RESPValue] = []
        while let value = try decoder.decode(buffer: &buffer) { values.append(value) }
        XCTAssertEqual(buffer.readableBytes, 0, "everything consumed")
        return values
    }

    func testEveryRESP2Type() throws {
        let values = try decodeAll("+OK\r\n-ERR wrong\r\n:-42\r\n$5\r\nhe\r\no\r\n$0\r\n\r\n$-1\r\n*-1\r\n*2\r\n:1\r\n*1\r\n+x\r\n")
        XCTAssertEqual(values, [.simpleString("OK"), .error("ERR wrong"), .integer(-42), .bulkString(ByteBuffer(string: "he\r\no")),
                                .bulkString(ByteBuffer()), .null, .null, .array([.integer(1), .array([.simpleString("x")])])])
    }

    func testAValueSplitAtEveryByteIsDecodedOnceComplete() throws {
        let text = "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$11\r\nhello world\r\n"
        let bytes = Array(text.utf8)
        for split in 1..<bytes.count {
            var decoder = RESPDecoder()
            var buffer = ByteBuffer(bytes: bytes[..<split])
            XCTAssertNil(try decoder.decode(buffer: &buffer), "incomplete at \(split)")
            XCTAssertEqual(buffer.readerIndex, 0, "nothing consumed while incomplete")
            buffer.writeBytes(bytes[split...])
            let value = try XCTUnwrap(decoder.decode(buffer: &buffer))
            XCTAssertEqual(value.array?.compactMap(\.string), ["message", "ch", "hello world"])
        }
    }

    func testHostileInputIsRefusedNotTrusted() {
        var small = RESPDecoder.Bounds()
        small.maxBulkBytes = 10
        small.maxArrayCount = 5
        small.maxDepth = 3
        small.maxLineBytes = 32
        for hostile in ["$11\r\n", "*6\r\n", "****+x\r\n", "?x\r\n", ":12a\r\n", "$3\r\nabcde", "+x\rY", "$-2\r\n",
                        ":" + String(repeating: "9", count: 40) + "\r\n", "+" + String(repeating: "a", count: 100)] {
            var decoder = RESPDecoder(bounds: small)
            var buffer = ByteBuffer(string: hostile)
            XCTAssertThrowsError(try decoder.decode(buffer: &buffer), "\(hostile.prefix(20)) must be refused")
        }
    }

    func testAHugeClaimedArrayDoesNotReserveMemoryBeforeItsElementsArrive() throws {
        var decoder = RESPDecoder()
        var buffer = ByteBuffer(string: "*1000000\r\n:1\r\n")
        XCTAssertNil(try decoder.decode(buffer: &buffer))
    }

    func testCommandsAreWrittenAsArraysOfBulkStrings() {
        var buffer = ByteBuffer()
        buffer.writeRESPCommand(["SET", .text("ké"), .bytes(ByteBuffer(string: "a\r\nb")), .integer(-7)])
        XCTAssertEqual(String(buffer: buffer), "*4\r\n$3\r\nSET\r\n$3\r\nké\r\n$4\r\na\r\nb\r\n$2\r\n-7\r\n")
    }

    func testAddressesParse() throws {
        XCTAssertEqual(try RedisAddress(url: "redis://cache:6380/2"), RedisAddress(host: "cache", port: 6380, database: 2))
        XCTAssertEqual(try RedisAddress(url: "redis://:secret@10.0.0.1"), RedisAddress(host: "10.0.0.1", password: "secret"))
        XCTAssertEqual(try RedisAddress(url: "redis://bob:pw@[::1]:7000/"), RedisAddress(host: "::1", port: 7000, user: "bob", password: "pw"))
        XCTAssertEqual(try RedisAddress(url: "redis://:secret@h").description, "redis://***@h:6379/0")
        for bad in ["http://x", "redis://", "redis://h:0", "redis://h:99999", "redis://h/x", "redis://h:port", "redis://[::1"] {
            XCTAssertThrowsError(try RedisAddress(url: bad), bad)
        }
    }
}
