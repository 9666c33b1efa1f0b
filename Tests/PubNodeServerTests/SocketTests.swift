import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// Over real loopback sockets: a parked subscriber is woken by a publish from another client.
final class SocketTests: XCTestCase {
    func testParkedSubscriberIsWokenByPublishOverRealSockets() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 2
        let server = PubNodeHTTPServer(configuration: configuration, node: Node())
        let port = try await server.start()
        let base = "http://127.0.0.1:\(port)"
        let session = URLSession(configuration: .ephemeral)

        let (handshake, _) = try await session.data(from: URL(string: "\(base)/v2/subscribe/demo/sock/0?tt=0")!)
        let cursor = try XCTUnwrap(Response.parse(httpBody: handshake)["t"]?["t"]?.stringValue)
        let parked = Task {
            try await session.data(from: URL(string: "\(base)/v2/subscribe/demo/sock/0?tt=\(cursor)&uuid=s")!)
        }
        // The poll carries uuid=s (the handshake none): once s is present, the poll has reached
        // the node and parked there.
        let arrived = await eventually { !(server.node.presence.keyset("demo")?.whereNow(uuid: "s") ?? []).isEmpty }
        XCTAssertTrue(arrived, "the long-poll reached the node")
        let (published, publishResponse) = try await session.data(from: URL(string: "\(base)/publish/demo/demo/0/sock/0/%22over-tcp%22?uuid=p")!)
        XCTAssertEqual((publishResponse as? HTTPURLResponse)?.statusCode, 200)
        let timetoken = try XCTUnwrap(Response.parse(httpBody: published)[2]?.stringValue)
        let (body, _) = try await parked.value
        let answer = Response.parse(httpBody: body)
        XCTAssertEqual(answer["m"]?[0]?["d"], .string("over-tcp"))
        XCTAssertEqual(answer["m"]?[0]?["p"]?["t"]?.stringValue, timetoken)
        try await server.shutdown()
    }
}

extension Response {
    static func parse(httpBody: Data) -> JSON { JSON.parse(Array(httpBody)) }
}
