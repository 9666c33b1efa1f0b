import NIOCore
import NIOHTTP1
import NIOPosix
import PubNodeTestSupport
import Synchronization

/// A local webhook receiver for tests: records every request and answers with what `respond`
/// returns for it (status, body, extra headers, and a delay before answering).
final class TestReceiver: Sendable {
    struct Request: Sendable {
        var method: String
        var uri: String
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Answer: Sendable {
        var status: Int = 200
        var body: String = ""
        var headers: [(String, String)] = []
        var delayMilliseconds: Int64 = 0
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let log = Mutex<[Request]>([])
    private let responder: Mutex<@Sendable (Request, Int) -> Answer>
    private let channel: Mutex<(any Channel)?> = Mutex(nil)
    let port: Int

    /// Starts listening on a free port (or `port`).
    init(port: Int = 0, respond: @escaping @Sendable (Request, Int) -> Answer = { _, _ in Answer() }) throws {
        self.responder = Mutex(respond)
        let holder = Holder()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(ReceiverHandler(receiver: holder.receiver!))
                }
            }
        let bound = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
        self.port = bound.localAddress!.port!
        channel.withLock { $0 = bound }
        holder.receiver = self
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Every request received so far.
    var requests: [Request] { log.withLock { $0 } }

    /// Replaces the answer function.
    func respond(_ body: @escaping @Sendable (Request, Int) -> Answer) { responder.withLock { $0 = body } }

    /// Records `request` and picks its answer (the second argument counts requests, from 1).
    func handle(_ request: Request) -> Answer {
        let count = log.withLock { log -> Int in
            log.append(request)
            return log.count
        }
        return responder.withLock { $0 }(request, count)
    }

    /// Waits until `count` requests arrived or `timeout` passes.
    func waitFor(_ count: Int, timeout: Duration = .seconds(10)) async -> [Request] {
        _ = await eventually(timeout: timeout) { requests.count >= count }
        return requests
    }

    func stop() {
        try? channel.withLock { $0 }?.close().wait()
        try? group.syncShutdownGracefully()
    }

    final class Holder: @unchecked Sendable {
        // Set once before the first connection is accepted.
        var receiver: TestReceiver?
    }
}

private final class ReceiverHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let receiver: TestReceiver
    var head: HTTPRequestHead?
    var body: [UInt8] = []

    init(receiver: TestReceiver) { self.receiver = receiver }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let answer = receiver.handle(.init(method: head.method.rawValue, uri: head.uri, headers: headers, body: body))
            let write = { [self] in
                var responseHeaders = HTTPHeaders([("Content-Length", String(answer.body.utf8.count))])
                for (name, value) in answer.headers { responseHeaders.add(name: name, value: value) }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1,
                                                                     status: HTTPResponseStatus(statusCode: answer.status),
                                                                     headers: responseHeaders))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
            if answer.delayMilliseconds > 0 {
                context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(answer.delayMilliseconds)) { write() }
            } else {
                write()
            }
        }
    }
}
