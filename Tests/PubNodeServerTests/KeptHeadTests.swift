import NIOCore
@testable import PubNodeServer
import XCTest

/// `HTTPRequestParser.KeptHead`: a head that repeats the last one with another target is read by
/// comparing bytes, and is read exactly as a full parse reads it; anything else is parsed in full.
final class KeptHeadTests: XCTestCase {
    /// What a head says, for comparing the two ways of reading it.
    struct Summary: Equatable {
        var method: String
        var uri: String
        var family: RequestFamily
        var minor: Int
        var keepAlive: Bool
        var fieldCount: Int
        var contentLength: Int?
        var chunked: Bool
        var contentEncoding: RequestHead.ContentEncoding
        var fieldBlock: String

        init(_ head: RequestHead) {
            (method, uri, family, minor, keepAlive) = (head.method.rawValue, head.uri, head.family, head.minorVersion, head.keepAlive)
            (fieldCount, contentLength, chunked) = (head.fieldCount, head.contentLength, head.chunked)
            (contentEncoding, fieldBlock) = (head.contentEncoding, head.fieldBlock)
        }
    }

    let fields = "Host: 127.0.0.1:8090\r\nUser-Agent: PubNub-Python/10.8.0\r\nAccept-Encoding: gzip\r\n\r\n"
    /// `fields` as a head keeps them: without the closing empty line.
    var fieldLines: String { String(decoding: Array(fields.utf8).dropLast(2), as: UTF8.self) }

    /// A field count no parsed head has: set in the kept template, it marks a head read off it.
    static let marker = -1

    /// Replaces `parser`'s kept head with one whose template carries `marker` (the same bytes).
    static func mark(_ parser: inout HTTPRequestParser) {
        guard let kept = parser.kept else { return }
        var template = kept.template
        template.fieldCount = marker
        parser.kept = HTTPRequestParser.KeptHead(template: template, bytes: kept.bytes, targetStart: kept.targetStart)
    }

    /// Reads `first`, then whether `second`, arriving whole, is read off the kept head (marked
    /// through the template), and the head (or refusal) read for it.
    func readSecond(after first: String, _ second: String, maxHeadBytes: Int = 64 * 1024)
        -> (kept: Bool, head: Summary?, failure: HTTPRequestParser.Failure?) {
        var parser = HTTPRequestParser(maxHeadBytes: maxHeadBytes)
        parser.append(ByteBuffer(string: first))
        while case .some = try? parser.next() {}
        let fieldCount = parser.kept?.template.fieldCount
        Self.mark(&parser)
        parser.append(ByteBuffer(string: second))
        do {
            guard case .head(var head) = try parser.next() else { return (false, nil, nil) }
            let kept = head.fieldCount == Self.marker
            if kept { head.fieldCount = fieldCount! }
            return (kept, Summary(head), nil)
        } catch {
            return (false, nil, error)
        }
    }

    /// The head (or refusal) a parser that has read nothing before reads for `text`.
    func readAlone(_ text: String, maxHeadBytes: Int = 64 * 1024) -> (head: Summary?, failure: HTTPRequestParser.Failure?) {
        var parser = HTTPRequestParser(maxHeadBytes: maxHeadBytes)
        parser.append(ByteBuffer(string: text))
        do {
            guard case .head(let head) = try parser.next() else { return (nil, nil) }
            return (Summary(head), nil)
        } catch {
            return (nil, error)
        }
    }

    func testRepeatedPublishAndPollAreReadOffTheKeptHead() throws {
        let publish = "GET /publish/demo/demo/0/bench0/0/%22a%22?uuid=u HTTP/1.1\r\n" + fields
        let next = "GET /publish/demo/demo/0/bench0/0/%22a%20longer%20message%22?uuid=u HTTP/1.1\r\n" + fields
        let read = readSecond(after: publish, next)
        XCTAssertTrue(read.kept)
        XCTAssertEqual(read.head, readAlone(next).head)
        XCTAssertEqual(read.head?.uri, "/publish/demo/demo/0/bench0/0/%22a%20longer%20message%22?uuid=u")
        XCTAssertEqual(read.head?.fieldCount, 3)
        XCTAssertEqual(read.head?.fieldBlock, "", "a publish keeps no field lines")

        let poll = "GET /v2/subscribe/demo/c/0?tt=0&uuid=u HTTP/1.1\r\n" + fields
        let again = "GET /v2/subscribe/demo/c/0?tt=17000000000000000&tr=1&uuid=u HTTP/1.1\r\n" + fields
        XCTAssertEqual(readSecond(after: poll, again).kept, true)
        XCTAssertEqual(readSecond(after: poll, again).head, readAlone(again).head)
    }

    func testTheFamilyIsReadOffTheNewTarget() {
        let publish = "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields
        for (second, family) in [("GET /signal/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields, RequestFamily.signal),
                                 ("GET /v2/subscribe/demo/c/0?tt=0 HTTP/1.1\r\n" + fields, .subscribe)] {
            let read = readSecond(after: publish, second)
            XCTAssertTrue(read.kept, second)
            XCTAssertEqual(read.head?.family, family)
            XCTAssertEqual(read.head, readAlone(second).head)
        }
    }

    func testPipelinedRepeatsAreReadInOrderWithTheirEnds() throws {
        let heads = (1...3).map { "GET /publish/demo/demo/0/c/0/\($0) HTTP/1.1\r\n" + fields }
        var parser = HTTPRequestParser(maxHeadBytes: 64 * 1024)
        parser.append(ByteBuffer(string: heads[0]))
        while case .some = try parser.next() {}
        Self.mark(&parser)
        parser.append(ByteBuffer(string: heads[1] + heads[2] + "GET /time/0 HTTP/1.1\r\n\r\n"))
        var read: [String] = []
        while let part = try parser.next() {
            switch part {
            case .head(let head): read.append("\(head.uri) \(head.fieldCount == Self.marker ? "kept" : "parsed")")
            case .body: read.append("body")
            case .end: read.append("end")
            }
        }
        XCTAssertEqual(read, ["/publish/demo/demo/0/c/0/2 kept", "end", "/publish/demo/demo/0/c/0/3 kept", "end",
                              "/time/0 parsed", "end"])
    }

    func testTheHeadLimitIsTheFullParsesToTheByte() {
        let first = "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields
        let limit = 200
        let padding = limit - first.utf8.count
        let fits = "GET /publish/demo/demo/0/c/0/1\(String(repeating: "2", count: padding)) HTTP/1.1\r\n" + fields
        XCTAssertEqual(fits.utf8.count, limit)
        let read = readSecond(after: first, fits, maxHeadBytes: limit)
        XCTAssertTrue(read.kept)
        XCTAssertEqual(read.head, readAlone(fits, maxHeadBytes: limit).head)
        let over = "GET /publish/demo/demo/0/c/0/1\(String(repeating: "2", count: padding + 1)) HTTP/1.1\r\n" + fields
        let refused = readSecond(after: first, over, maxHeadBytes: limit)
        XCTAssertFalse(refused.kept)
        XCTAssertEqual(refused.failure?.status, .requestHeaderFieldsTooLarge)
        XCTAssertEqual(refused.failure, readAlone(over, maxHeadBytes: limit).failure)
    }

    func testAnotherFamilyWithFieldLinesIsReadOnlyWhenItKeepsThemAlike() {
        let publish = "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields
        let objects = "GET /v2/objects/demo/uuids/u HTTP/1.1\r\n" + fields
        let read = readSecond(after: publish, objects)
        XCTAssertFalse(read.kept, "a publish's template holds no field lines for an objects request")
        XCTAssertEqual(read.head, readAlone(objects).head)
        XCTAssertEqual(read.head?.fieldBlock, fieldLines)

        let other = "GET /v2/objects/demo/uuids/v HTTP/1.1\r\n" + fields
        let second = readSecond(after: objects, other)
        XCTAssertTrue(second.kept)
        XCTAssertEqual(second.head, readAlone(other).head)
        XCTAssertEqual(second.head?.fieldBlock, fieldLines)
    }

    func testAnythingButTheTargetChangedIsParsedInFull() {
        let first = "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields
        for second in [
            "GET /publish/demo/demo/0/c/0/2 HTTP/1.1\r\nHost: 127.0.0.1:8090\r\nConnection: close\r\n\r\n",
            "GET /publish/demo/demo/0/c/0/2 HTTP/1.0\r\n" + fields,
            "POST /publish/demo/demo/0/c/0/2 HTTP/1.1\r\n" + fields,
            "GET /publish/demo/demo/0/c/0/2 HTTP/1.1\r\n" + fields.replacingOccurrences(of: "gzip", with: "gzap"),
            "\r\nGET /publish/demo/demo/0/c/0/2 HTTP/1.1\r\n" + fields,
        ] {
            let read = readSecond(after: first, second)
            XCTAssertFalse(read.kept, second)
            XCTAssertEqual(read.head, readAlone(second).head, second)
        }
    }

    func testATargetThatWouldBeRefusedIsParsedInFullAndRefused() {
        let first = "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields
        for second in [
            "GET /publish/demo/demo/0/c/0/\u{7F} HTTP/1.1\r\n" + fields,
            "GET /publish/demo/demo/0/c/0/a\tb HTTP/1.1\r\n" + fields,
            "GET  HTTP/1.1\r\n" + fields,
        ] {
            let read = readSecond(after: first, second)
            XCTAssertFalse(read.kept, second)
            XCTAssertNotNil(read.failure, second)
            XCTAssertEqual(read.failure, readAlone(second).failure, second)
        }
        // A target that grows the head past the limit is refused as a full parse refuses it.
        let head = "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields
        let long = "GET /publish/demo/demo/0/c/0/\(String(repeating: "1", count: 200)) HTTP/1.1\r\n" + fields
        let read = readSecond(after: head, long, maxHeadBytes: 200)
        XCTAssertFalse(read.kept)
        XCTAssertEqual(read.failure?.status, .requestHeaderFieldsTooLarge)
    }

    func testAHeadNotAllReceivedWaitsAndIsParsedInFull() throws {
        var parser = HTTPRequestParser(maxHeadBytes: 64 * 1024)
        parser.append(ByteBuffer(string: "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\n" + fields))
        while case .some = try parser.next() {}
        let second = "GET /publish/demo/demo/0/c/0/22 HTTP/1.1\r\n" + fields
        let bytes = Array(second.utf8)
        parser.append(ByteBuffer(bytes: bytes.dropLast()))
        XCTAssertNil(try parser.next())
        parser.append(ByteBuffer(bytes: bytes.suffix(1)))
        guard case .head(let head) = try parser.next() else { return XCTFail("no head") }
        XCTAssertEqual(Summary(head), readAlone(second).head)
    }

    func testBodiesAndClosingHeadsAreNotKept() throws {
        for first in [
            "POST /publish/demo/demo/0/c/0 HTTP/1.1\r\nContent-Length: 2\r\n\r\n12",
            "GET /publish/demo/demo/0/c/0/1 HTTP/1.1\r\nConnection: close\r\n\r\n",
            "GET /publish/demo/demo/0/c/0/1 HTTP/1.0\r\n\r\n",
        ] {
            var parser = HTTPRequestParser(maxHeadBytes: 64 * 1024)
            parser.append(ByteBuffer(string: first))
            while case .some = try parser.next() {}
            XCTAssertNil(parser.kept, first)
        }
        var parser = HTTPRequestParser(maxHeadBytes: 64 * 1024)
        parser.append(ByteBuffer(string: "GET /time/0 HTTP/1.1\r\n" + fields))
        while case .some = try parser.next() {}
        let kept = try XCTUnwrap(parser.kept)
        XCTAssertEqual(kept.template.target.readableBytes, 0, "the template holds no received bytes")
        XCTAssertEqual(kept.bytes, Array(("GET  HTTP/1.1\r\n" + fields).utf8))
    }
}
