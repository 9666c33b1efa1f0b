import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@testable import PubNodeServer
import XCTest

/// The options an accepted connection is served with, read back from a real loopback socket: the
/// listener's bootstrap and `configureOptions` are the server's own.
final class ConnectionOptionsTests: XCTestCase {
    func testAnAcceptedConnectionHasNoDelayAndReadsUpToSixteenTimesATurn() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let seen = NIOLockedValueBox<(noDelay: Int, reads: UInt)?>(nil)
        let accepted = group.next().makePromise(of: Void.self)
        let listener = try await PubNodeHTTPServer.listenerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    do {
                        try PubNodeHTTPServer.configureOptions(channel)
                        let options = try XCTUnwrap(channel.syncOptions)
                        // The kernel's own value (getsockopt), not a copy NIO keeps.
                        let noDelay = try options.getOption(.socketOption(.tcp_nodelay))
                        let reads = try options.getOption(.maxMessagesPerRead)
                        seen.withLockedValue { $0 = (noDelay, reads) }
                        accepted.succeed(())
                    } catch {
                        accepted.fail(error)   // fails the test rather than leaving it waiting
                        throw error
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try XCTUnwrap(listener.localAddress?.port)
        let client = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 0)
            .connect(host: "127.0.0.1", port: port).get()
        try await accepted.futureResult.get()
        let options = try XCTUnwrap(seen.withLockedValue { $0 })
        XCTAssertNotEqual(options.noDelay, 0, "TCP_NODELAY: answers leave without waiting for an ACK")
        XCTAssertEqual(options.reads, 16)
        try await client.close()
        try await listener.close()
        try await group.shutdownGracefully()
    }
}
