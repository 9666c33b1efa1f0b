import NIOCore
import NIOExtras
import NIOPosix
import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Behaviours pinned after review: presence names are the node's own, HEAD changes nothing,
/// draining and idle connections are closed.
final class ReviewRegressionTests: XCTestCase {
    func testClientsCannotPublishOrGroupPresenceNames() throws {
        let node = EmbeddedNode()
        for target in ["/publish/demo/demo/0/chat-pnpres/0/%7B%22action%22%3A%22join%22%7D",
                       "/signal/demo/demo/0/chat-pnpres/0/1",
                       "/publish/demo/demo/0/a-pnpres-b/0/1?store=0&norep=true"] {
            let response = try node.get(target)
            XCTAssertEqual(response.status, 400, target)
            XCTAssertTrue(response.text.contains("reserved for presence"), response.text)
        }
        let base = "/v1/channel-registration/sub-key/demo/channel-group"
        XCTAssertEqual(try node.get("\(base)/g-pnpres?add=a").status, 400)
        XCTAssertEqual(try node.get("\(base)/g?add=a-pnpres").status, 400)
        XCTAssertEqual(try node.get("\(base)/g").json["payload"]?["channels"], .array([]))
    }

    func testHeadChangesNothing() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("h")
        let connection = try node.connect()
        try connection.send("HEAD /publish/demo/demo/0/h/0/%22x%22 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        connection.runLoop()
        var bytes: [UInt8] = []
        while let chunk = try connection.channel.readOutbound(as: ByteBuffer.self) { bytes += chunk.readableBytesView }
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 405"))
        let subscriber = try node.connect()
        try subscriber.send("GET /v2/subscribe/demo/h/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try subscriber.response(), "nothing was published")
    }

    func testDrainClosesAConnectionWhoseRequestIsStillArriving() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try connection.send("POST /publish/demo/demo/0/c/0 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\"")
        XCTAssertTrue(connection.isOpen)
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        connection.runLoop()
        XCTAssertFalse(connection.isOpen)
    }

    func testSilentConnectionsAreClosedOverRealSockets() async throws {
        var limits = Limits()
        limits.longPollTimeoutSeconds = 1
        limits.idleConnectionSeconds = 2
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = PubNodeHTTPServer(configuration: configuration, node: Node(limits: limits))
        let port = try await server.start()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connected = ContinuousClock.now
        let silent = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        let closed = await eventually(timeout: .seconds(10)) { !silent.isActive }
        XCTAssertTrue(closed, "closed after 2 s without a byte")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - connected, .seconds(2), "not before it was idle for 2 s")
        try await group.shutdownGracefully()
        try await server.shutdown()
    }
}
