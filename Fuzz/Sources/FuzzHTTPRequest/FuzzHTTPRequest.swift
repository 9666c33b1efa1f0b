import FuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import PubNodeServer

/// The HTTP/1.1 request parser: never traps; reads the same requests (heads, bodies, ends, and the
/// same refusal) whether the bytes arrive at once, split at one point, or a few bytes at a time
/// (the first input byte picks the split and the head limit: a head that repeats the last one with
/// another target is read off the kept head when it arrives whole, and parsed in full when it
/// arrives a few bytes at a time, so the two ways of reading it are held to one result), and the
/// same when the end of each request without a body is taken at its head; an accepted head that keeps its
/// field lines, written out again from what was read, reads back the same; and where NIO's llhttp decoder also reads the bytes
/// without error, the requests both read agree (method, target, body): two parsers that disagree
/// about where a request ends are what request smuggling needs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    let maxHead = first & 0x80 == 0 ? 64 * 1024 : 96
    let whole = parseAll([input], maxHeadBytes: maxHead)
    let split = Int(first) % (input.count + 1)
    require(parseAll([Array(input[..<split]), Array(input[split...])], maxHeadBytes: maxHead) == whole,
            "splitting at \(split) reads differently")
    let step = Int(first & 0x07) + 1
    let pieces = stride(from: 0, to: input.count, by: step).map { Array(input[$0..<min(input.count, $0 + step)]) }
    require(parseAll(pieces, maxHeadBytes: maxHead) == whole, "\(step)-byte reads read differently")
    require(parseAll([input], maxHeadBytes: maxHead, takingEnds: true) == whole,
            "taking the ends of requests without a body at their heads reads differently")
    require(parseAll(pieces, maxHeadBytes: maxHead, takingEnds: true) == whole,
            "\(step)-byte reads taking those ends read differently")
    if maxHead == 64 * 1024, let theirs = llhttpRequests(input) {
        // CONNECT is compared up to itself: llhttp gives it no body whatever its fields say (it
        // is the start of a tunnel), RFC 9112 frames it like any request; either way it is the
        // last request read.
        let ours = Array(whole.requests.prefix { !$0.hasPrefix("CONNECT ") })
        for index in 0..<min(ours.count, theirs.count) {
            require(ours[index] == theirs[index], "llhttp read request \(index) as \(theirs[index]), we as \(ours[index])")
        }
    }
    // Publish, signal and subscribe heads keep no field lines (their endpoints read none), so only
    // the heads that keep theirs can be written out again from what was read.
    for head in whole.heads where !head.fieldBlock.isEmpty || head.fieldCount == 0 {
        let written = "\(head.method.rawValue) \(head.uri) HTTP/1.\(head.minorVersion)\r\n\(head.fieldBlock)\r\n"
        let again = parseAll([Array(written.utf8)], maxHeadBytes: Int.max).heads
        require(again.count == 1 && summary(again[0]) == summary(head), "head written out reads differently: \(written)")
    }
    return 0
}

/// What a parse read: one line per head and end, bodies joined, and the refusal's status.
struct Outcome: Equatable {
    var lines: [String] = []
    var heads: [RequestHead] = []
    /// Each complete request as method, target and body.
    var requests: [String] = []

    static func == (lhs: Outcome, rhs: Outcome) -> Bool { lhs.lines == rhs.lines }
}

func summary(_ head: RequestHead) -> String {
    "\(head.method.rawValue) \(head.uri) 1.\(head.minorVersion) keep=\(head.keepAlive) fields=\(head.fieldCount) "
        + "length=\(String(describing: head.contentLength)) chunked=\(head.chunked) \(head.contentEncoding) "
        + "family=\(head.family) block=\(head.fieldBlock.utf8.count)"
}

/// `takingEnds`: after each head without a body, its end is taken at once (`takeEnd()`, as the
/// handler does), which must succeed exactly for those heads.
func parseAll(_ chunks: [[UInt8]], maxHeadBytes: Int, takingEnds: Bool = false) -> Outcome {
    var parser = HTTPRequestParser(maxHeadBytes: maxHeadBytes)
    var outcome = Outcome()
    var body: [UInt8] = []
    var inRequest = false
    func end() {
        require(inRequest, "an end without a head")
        if let length = outcome.heads.last?.contentLength {
            require(body.count == length, "a body of \(body.count) bytes for Content-Length \(length)")
        }
        outcome.lines.append("body \(body)")
        outcome.lines.append("end")
        if let head = outcome.heads.last {
            outcome.requests.append("\(head.method.rawValue) \(head.uri) \(body)")
        }
        body = []
        inRequest = false
    }
    for chunk in chunks {
        parser.append(ByteBuffer(bytes: chunk))
        do {
            while let part = try parser.next() {
                switch part {
                case .head(let head):
                    require(!inRequest, "a head inside a request")
                    inRequest = true
                    outcome.heads.append(head)
                    outcome.lines.append("head " + summary(head))
                    if takingEnds {
                        let hasBody = head.chunked || (head.contentLength ?? 0) > 0
                        let taken = parser.takeEnd()
                        require(taken != hasBody, "takeEnd gave \(taken) for a head with\(hasBody ? "" : "out") a body")
                        if taken { end() }
                    }
                case .body(let bytes):
                    require(inRequest && bytes.readableBytes > 0, "an empty or stray body part")
                    body += bytes.readableBytesView
                case .end:
                    end()
                }
            }
        } catch {
            outcome.lines.append("refused \(error.status.code)")
            return outcome
        }
    }
    return outcome
}

/// The complete requests NIO's llhttp-based decoder reads from `bytes`, or nil when it refuses them.
func llhttpRequests(_ bytes: [UInt8]) -> [String]? {
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
    defer { _ = try? channel.finish() }
    var requests: [String] = []
    var head: HTTPRequestHead?
    var body: [UInt8] = []
    do {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let read):
                head = read
                body = []
            case .body(let chunk):
                body += chunk.readableBytesView
            case .end:
                if let head { requests.append("\(head.method.rawValue) \(head.uri) \(body)") }
                head = nil
            }
        }
    } catch {
        return nil
    }
    return requests
}
