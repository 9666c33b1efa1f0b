import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// A publish's answer written straight into the response buffer, and response buffers reused
/// only once the channel has let go of them.
final class ResponseWritingTests: XCTestCase {
    func testTheSentAnswerIsTheSameBytesAsTheSentReply() {
        for timetoken in [Timetoken(17_955_053_747_317_536), Timetoken(7), Timetoken(179_550_537_473_175_360)] {
            assertSentAnswerIsTheSentReply(timetoken)
        }
        XCTAssertEqual(String(buffer: HTTPReply.sent(Timetoken(17_955_053_747_317_536)).body),
                       #"[1,"Sent","17955053747317536"]"#)
    }

    /// `writeSent` (ready bytes for a usual timetoken, parts otherwise) writes what `serialize`
    /// writes of the same reply, for each version, keep-alive and body.
    private func assertSentAnswerIsTheSentReply(_ timetoken: Timetoken, line: UInt = #line) {
        for minorVersion in [0, 1] {
            for keepAlive in [true, false] {
                for includeBody in [true, false] {
                    let expected = HTTPResponseWriter.serialize(.sent(timetoken), minorVersion: minorVersion, keepAlive: keepAlive,
                                                                includeBody: includeBody, allocator: ByteBufferAllocator())
                    var written = ByteBuffer()
                    HTTPResponseWriter.writeSent(timetoken, minorVersion: minorVersion, keepAlive: keepAlive,
                                                 includeBody: includeBody, into: &written)
                    XCTAssertEqual(String(buffer: written), String(buffer: expected),
                                   "\(timetoken), HTTP/1.\(minorVersion), keep-alive \(keepAlive), body \(includeBody)",
                                   line: line)
                }
            }
        }
    }

    func testDecimalsAreWrittenInPlaceAsTheirDescription() {
        var buffer = ByteBuffer(string: "x")
        for value in [0, 7, 9, 10, 99, 100, 4_096, 1_000_000, Int.max] {
            buffer.clear()
            XCTAssertEqual(buffer.writeDecimal(value), String(value).utf8.count)
            XCTAssertEqual(String(buffer: buffer), String(value))
        }
        buffer.clear()
        buffer.writeStaticString("Content-Length: ")
        buffer.writeDecimal(31)
        XCTAssertEqual(String(buffer: buffer), "Content-Length: 31", "appended after what is there")
    }

    func testPipelinedAnswersStillQueuedAreNotWrittenOver() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        // Three publishes in one read: each answer is written while the earlier ones still sit,
        // unread, in the channel's outbound queue (as in a socket's pending writes).
        let request = { (n: Int) in "GET /publish/demo/demo/0/pipe/0/\(n) HTTP/1.1\r\nHost: x\r\n\r\n" }
        try connection.send(request(1) + request(2) + request(3))
        var answers: [String] = []
        while let response = try connection.response() { answers.append(response.text) }
        XCTAssertEqual(answers.count, 3)
        XCTAssertEqual(Set(answers).count, 3, "each answer carries its own timetoken: \(answers)")
        let hub = try XCTUnwrap(node.node.hub())
        let pipe = try Subscription(channelNames: ["pipe"], groupNames: [], limits: Limits())
        let stored = hub.collect(pipe, after: .zero).deliveries.map { "\($0.message.timetoken)" }
        XCTAssertEqual(answers, stored.map { #"[1,"Sent","\#($0)"]"# })

        // Read before the next request: the buffer is free again and serves the next answer.
        let handler = try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        try connection.send(request(4))
        XCTAssertEqual(try connection.response()?.status, 200)
        XCTAssertNotNil(handler.spareResponse, "a kept-alive connection keeps its last response buffer")
    }

    func testAParkedConnectionKeepsNoResponseBuffer() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try connection.send("GET /v2/subscribe/demo/park/0?tt=0 HTTP/1.1\r\nHost: x\r\n\r\n")
        let cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        let handler = try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertNotNil(handler.spareResponse)
        try connection.send("GET /v2/subscribe/demo/park/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try connection.response())
        XCTAssertNil(handler.spareResponse, "parked: its answer will come from the wake batch's shared buffer")
    }
}
