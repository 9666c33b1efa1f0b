import NIOCore
import NIOEmbedded
@testable import PubNodeServer
import XCTest

/// `KeptHeadBank`: connections of one loop keeping the same head bytes share one copy, and every
/// connection still reads its own heads exactly as before.
final class KeptHeadBankTests: XCTestCase {
    let fields = "Host: 127.0.0.1:8090\r\nUser-Agent: PubNub-Python/10.8.0\r\nAccept-Encoding: gzip\r\n\r\n"
    /// `fields` as a head keeps them: without the closing empty line.
    var fieldLines: String { String(decoding: Array(fields.utf8).dropLast(2), as: UTF8.self) }

    /// A parser using `bank` that has read `head` in full.
    func parser(after head: String, bank: KeptHeadBank?) throws -> HTTPRequestParser {
        var parser = HTTPRequestParser(maxHeadBytes: 64 * 1024)
        parser.bank = bank
        parser.append(ByteBuffer(string: head))
        while case .some = try parser.next() {}
        return parser
    }

    /// Where a kept head's bytes are stored.
    func storage(_ parser: HTTPRequestParser) -> UnsafeRawPointer? {
        parser.kept?.bytes.withUnsafeBytes { $0.baseAddress }
    }

    /// Where a kept head's field lines are stored (for a string held inline, a temporary copy's).
    func fieldStorage(_ parser: HTTPRequestParser) -> UnsafeRawPointer? {
        var block = parser.kept?.template.fieldBlock
        return block?.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    /// The next head `parser` reads for `text`, and whether it was read off the kept head.
    func next(_ parser: inout HTTPRequestParser, _ text: String) throws -> (uri: String, kept: Bool, fields: String)? {
        KeptHeadTests.mark(&parser)
        parser.append(ByteBuffer(string: text))
        guard case .head(let head) = try parser.next() else { return nil }
        _ = try parser.next()
        return (head.uri, head.fieldCount == KeptHeadTests.marker, head.fieldBlock)
    }

    func testEqualHeadsOnOneLoopShareOneCopy() throws {
        let bank = KeptHeadBank(loop: EmbeddedEventLoop())
        // `/time` keeps its field lines (longer than a string holds inline), a subscribe none.
        var first = try parser(after: "GET /time/1 HTTP/1.1\r\n" + fields, bank: bank)
        var second = try parser(after: "GET /time/2 HTTP/1.1\r\n" + fields, bank: bank)
        XCTAssertEqual(bank.count, 1)
        XCTAssertNotNil(storage(first))
        XCTAssertEqual(storage(first), storage(second))
        XCTAssertTrue(first.kept === second.kept, "one kept head, not two equal ones")
        XCTAssertGreaterThan(first.kept?.template.fieldBlock.utf8.count ?? 0, 15)
        XCTAssertEqual(fieldStorage(first), fieldStorage(second))
        // Each still reads its next head off the shared bytes, with its own target (`next` marks
        // the template in a kept head of its own, over the same bytes).
        let a = try XCTUnwrap(next(&first, "GET /time/3 HTTP/1.1\r\n" + fields))
        let b = try XCTUnwrap(next(&second, "GET /time/4 HTTP/1.1\r\n" + fields))
        XCTAssertEqual(a.uri, "/time/3")
        XCTAssertEqual(b.uri, "/time/4")
        XCTAssertTrue(a.kept)
        XCTAssertTrue(b.kept)
        XCTAssertEqual(a.fields, fieldLines)
    }

    func testAHeadKeptWithoutItsFieldLinesNeitherLendsNorTakesThem() throws {
        let bank = KeptHeadBank(loop: EmbeddedEventLoop())
        // The same bytes: a subscribe's template keeps no field lines, a `/time` one keeps them.
        var subscriber = try parser(after: "GET /v2/subscribe/demo/c/0?tt=1 HTTP/1.1\r\n" + fields, bank: bank)
        var timer = try parser(after: "GET /time/0 HTTP/1.1\r\n" + fields, bank: bank)
        let other = try parser(after: "GET /time/1 HTTP/1.1\r\n" + fields, bank: bank)
        XCTAssertEqual(bank.count, 2)
        XCTAssertEqual(storage(timer), storage(other))
        XCTAssertEqual(fieldStorage(timer), fieldStorage(other))
        let time = try XCTUnwrap(next(&timer, "GET /time/2 HTTP/1.1\r\n" + fields))
        XCTAssertTrue(time.kept)
        XCTAssertEqual(time.fields, fieldLines)
        let poll = try XCTUnwrap(next(&subscriber, "GET /v2/subscribe/demo/c/0?tt=2 HTTP/1.1\r\n" + fields))
        XCTAssertTrue(poll.kept)
        XCTAssertEqual(poll.fields, "")
    }

    func testHeadsThatDifferKeepTheirOwnBytes() throws {
        let bank = KeptHeadBank(loop: EmbeddedEventLoop())
        let other = fields.replacingOccurrences(of: "10.8.0", with: "10.8.1")
        var python = try parser(after: "GET /time/0 HTTP/1.1\r\n" + fields, bank: bank)
        var newer = try parser(after: "GET /time/0 HTTP/1.1\r\n" + other, bank: bank)
        XCTAssertEqual(bank.count, 2)
        XCTAssertNotEqual(storage(python), storage(newer))
        // A head with the other connection's fields is not read off this one's kept head.
        let crossed = try XCTUnwrap(next(&python, "GET /time/1 HTTP/1.1\r\n" + other))
        XCTAssertFalse(crossed.kept)
        XCTAssertTrue(crossed.fields.contains("10.8.1"))
        let own = try XCTUnwrap(next(&newer, "GET /time/2 HTTP/1.1\r\n" + other))
        XCTAssertTrue(own.kept)
        XCTAssertTrue(own.fields.contains("10.8.1"))
    }

    /// The control for the others: what they see shared is the bank's doing.
    func testWithoutABankEachParserKeepsItsOwnCopy() throws {
        let first = try parser(after: "GET /time/0 HTTP/1.1\r\n" + fields, bank: nil)
        let second = try parser(after: "GET /time/1 HTTP/1.1\r\n" + fields, bank: nil)
        XCTAssertNotNil(storage(first))
        XCTAssertNotEqual(storage(first), storage(second))
    }

    func testAFullBankStartsOverAndItsHeadsStillRead() throws {
        let bank = KeptHeadBank(loop: EmbeddedEventLoop())
        var first = try parser(after: "GET /time/0 HTTP/1.1\r\nX-Client: 0\r\n" + fields, bank: bank)
        for client in 1..<KeptHeadBank.capacity {
            _ = try parser(after: "GET /time/0 HTTP/1.1\r\nX-Client: \(client)\r\n" + fields, bank: bank)
        }
        XCTAssertEqual(bank.count, KeptHeadBank.capacity)
        _ = try parser(after: "GET /time/0 HTTP/1.1\r\nX-Client: new\r\n" + fields, bank: bank)
        XCTAssertEqual(bank.count, 1)
        // The first connection's copy outlives the bank's forgetting it.
        let read = try XCTUnwrap(next(&first, "GET /time/9 HTTP/1.1\r\nX-Client: 0\r\n" + fields))
        XCTAssertEqual(read.uri, "/time/9")
        XCTAssertTrue(read.kept)
        XCTAssertTrue(read.fields.hasPrefix("X-Client: 0\r\n"))
    }

    func testConnectionsOfOneLoopShareTheirHeadsThroughTheServer() throws {
        let embedded = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        var handlers: [PubNodeHTTPHandler] = []
        for tt in 1...2 {
            let connection = try embedded.connect(on: loop)
            try connection.send("GET /time/\(tt) HTTP/1.1\r\n" + fields)
            XCTAssertEqual(try connection.response()?.status, 200)
            handlers.append(try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self))
        }
        XCTAssertNotNil(storage(handlers[0].parser))
        XCTAssertEqual(storage(handlers[0].parser), storage(handlers[1].parser))
        // A connection on another loop keeps its own.
        let elsewhere = try embedded.connect()
        try elsewhere.send("GET /time/3 HTTP/1.1\r\n" + fields)
        XCTAssertEqual(try elsewhere.response()?.status, 200)
        let handler = try elsewhere.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertNotEqual(storage(handler.parser), storage(handlers[0].parser))
    }
}
