import Glibc
import NIOCore

/// The least a SwiftNIO server must do to answer this tool's publish and subscribe requests: find
/// the end of each request head, tell the two endpoints apart by their path, and write prebuilt
/// bytes. It validates nothing, stores one message, and keeps no presence, metrics or access
/// control, so its CPU per operation is a floor under any server built on NIO's channels
/// (`floor` command; `Scripts/bench-cost.sh` with `SERVER=floor`).
///
/// Each hub belongs to one event loop, with the handlers of the connections on that loop.
final class FloorHub {
    /// Connections whose long-poll waits for the next publish.
    private var parked: [ObjectIdentifier: FloorHandler] = [:]
    /// The last message as published (percent-encoded), its channel and timetoken.
    private var latest: (timetoken: UInt64, message: ArraySlice<UInt8>, channel: ArraySlice<UInt8>)?
    /// The last message's subscribe answer, once built: a poll from before it is answered with it
    /// at once, as a server's buffer would.
    private var last: (timetoken: UInt64, answer: ByteBuffer)?
    /// The last timetoken given out; timetokens only grow.
    private var timetoken: UInt64 = 0
    /// How many long-polls are parked.
    var parkedCount: Int { parked.count }

    /// A fresh timetoken: 100 ns units of the wall clock, past the last one.
    func nextTimetoken() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        timetoken = max(timetoken + 1, UInt64(now.tv_sec) * 10_000_000 + UInt64(now.tv_nsec) / 100)
        return timetoken
    }

    /// Answers a long-poll from `cursor` at once with the last message when it is newer, or parks it.
    func subscribe(_ handler: FloorHandler, cursor: UInt64) {
        if let latest, latest.timetoken > cursor, let answer = lastAnswer() {
            handler.write(answer)
        } else {
            parked[ObjectIdentifier(handler)] = handler
        }
    }

    /// Forgets a parked connection that went away.
    func leave(_ handler: FloorHandler) {
        parked.removeValue(forKey: ObjectIdentifier(handler))
    }

    /// Takes a publish of `message` (percent-encoded JSON text) on `channel`: every parked poll is
    /// answered with one answer built once; with none parked it is built when a poll asks for it.
    func publish(message: ArraySlice<UInt8>, channel: ArraySlice<UInt8>, timetoken: UInt64) {
        latest = (timetoken, message, channel)
        last = nil
        guard !parked.isEmpty, let answer = lastAnswer() else { return }
        let woken = parked.values
        parked.removeAll(keepingCapacity: true)
        for handler in woken { handler.write(answer) }
    }

    /// The answer carrying the last message, built on first use.
    private func lastAnswer() -> ByteBuffer? {
        if let last { return last.answer }
        guard let latest else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(latest.message.count + latest.channel.count + 128)
        body += Array("{\"t\":{\"t\":\"\(latest.timetoken)\",\"r\":1},\"m\":[{\"a\":\"1\",\"f\":0,\"i\":\"load\",\"p\":{\"t\":\"".utf8)
        body += Array("\(latest.timetoken)\",\"r\":1},\"k\":\"demo\",\"c\":\"".utf8)
        body += latest.channel
        body += Array("\",\"d\":".utf8)
        body += PercentEncoding.decode(latest.message)
        body += Array("}]}".utf8)
        let answer = FloorHandler.response(body: body)
        last = (latest.timetoken, answer)
        return answer
    }
}

/// One connection of the floor server: reads request heads and answers each from `FloorHub`.
final class FloorHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let hub: FloorHub
    private var context: ChannelHandlerContext?
    /// Bytes received and not yet read as a request head.
    private var pending: ByteBuffer?

    init(hub: FloorHub) {
        self.hub = hub
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelInactive(context: ChannelHandlerContext) {
        hub.leave(self)
        self.context = nil
        context.fireChannelInactive()
    }

    /// Most bytes held for an unfinished head before the connection is closed.
    private static let maxPendingBytes = 16 * 1024

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if pending == nil {
            pending = incoming
        } else {
            pending!.discardReadBytes()
            pending!.writeBuffer(&incoming)
        }
        while let head = nextHead() { route(head) }
        if let pending, pending.readableBytes > Self.maxPendingBytes {
            self.pending = nil
            context.close(promise: nil)
        }
    }

    /// The next complete request head's first line, consumed with the rest of the head.
    private func nextHead() -> [UInt8]? {
        guard let bytes = pending, let end = Self.headEnd(bytes.readableBytesView) else { return nil }
        let view = bytes.readableBytesView
        let lineEnd = view[..<end].firstIndex(of: UInt8(ascii: "\r")) ?? end
        let line = Array(view[view.startIndex..<lineEnd])
        pending!.moveReaderIndex(to: end + 4)
        if pending!.readableBytes == 0 { pending = nil }
        return line
    }

    /// The index of the `\r\n\r\n` ending the first head in `view`, if it has arrived.
    private static func headEnd(_ view: ByteBufferView) -> Int? {
        var index = view.startIndex
        while index + 3 < view.endIndex {
            if view[index] == 13, view[index + 1] == 10, view[index + 2] == 13, view[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// Answers a request line: `GET /publish/…`, `GET /v2/subscribe/…`, `GET /parked`, or 404.
    private func route(_ line: [UInt8]) {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else {
            return write(Self.response(status: "400 Bad Request", body: []))
        }
        let rest = line[(space + 1)...]
        let target = rest[..<(rest.firstIndex(of: UInt8(ascii: " ")) ?? rest.endIndex)]
        let query = target.firstIndex(of: UInt8(ascii: "?"))
        let path = target[..<(query ?? target.endIndex)]
        if path.starts(with: Self.publishPrefix) {
            // /publish/{pub}/{sub}/0/{channel}/0/{message}
            let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            guard segments.count == 8 else { return write(Self.response(status: "400 Bad Request", body: [])) }
            let timetoken = hub.nextTimetoken()
            write(Self.response(body: Array("[1,\"Sent\",\"\(timetoken)\"]".utf8)))
            hub.publish(message: segments[7], channel: segments[5], timetoken: timetoken)
        } else if path.starts(with: Self.subscribePrefix) {
            let cursor = query.flatMap { Self.cursor(in: target[$0...]) } ?? 0
            if cursor == 0 {
                let handshake = "{\"t\":{\"t\":\"\(hub.nextTimetoken())\",\"r\":1},\"m\":[]}"
                write(Self.response(body: Array(handshake.utf8)))
            } else {
                hub.subscribe(self, cursor: cursor)
            }
        } else if path.elementsEqual("/parked".utf8) {
            write(Self.response(body: Array("\(hub.parkedCount)\n".utf8)))
        } else {
            write(Self.response(status: "404 Not Found", body: []))
        }
    }

    private static let publishPrefix = Array("/publish/".utf8)
    private static let subscribePrefix = Array("/v2/subscribe/".utf8)

    /// Writes one whole response.
    func write(_ bytes: ByteBuffer) {
        context?.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    private func write(_ bytes: [UInt8]) {
        write(ByteBuffer(bytes: bytes))
    }

    /// A response with the same header fields as PubNode's subscribe and publish answers.
    static func response(status: String = "200 OK", body: [UInt8]) -> ByteBuffer {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=UTF-8\r\n"
            + "Content-Length: \(body.count)\r\nCache-Control: no-cache\r\nAccess-Control-Allow-Origin: *\r\n"
            + "Connection: keep-alive\r\n\r\n"
        var buffer = ByteBuffer(string: head)
        buffer.writeBytes(body)
        return buffer
    }

    /// The `tt=` value of a query, when it is all digits.
    private static func cursor(in query: ArraySlice<UInt8>) -> UInt64? {
        for field in query.dropFirst().split(separator: UInt8(ascii: "&")) where field.starts(with: "tt=".utf8) {
            return UInt64(String(decoding: field.dropFirst(3), as: UTF8.self))
        }
        return nil
    }
}
