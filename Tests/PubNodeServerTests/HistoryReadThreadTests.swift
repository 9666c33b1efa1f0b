import NIOPosix
import PubNodeCore
import PubNodeServer
import Synchronization
import PubNodeTestSupport
import XCTest

/// History endpoints read the store off the event loops, over a real socket.
final class HistoryReadThreadTests: XCTestCase {
    func testHistoryReadsNeverRunOnAnEventLoop() async throws {
        let onLoop = Mutex<[Bool]>([])
        let store = InstrumentedStore(onRead: { onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) } })
        let clock = TimetokenClock()
        let history = MessageHistory(store: store, policies: ["demo": HistoryPolicy()], clock: clock, flushMilliseconds: 1)
        let socket = try await SocketNode.start(Node(clock: clock, history: history))
        XCTAssertEqual(try socket.get("/publish/demo/demo/0/c/0/%22hi%22")?.status, 200)
        let fetched = try socket.get("/v3/history/sub-key/demo/channel/c")
        XCTAssertEqual(fetched?.status, 200)
        XCTAssertTrue(fetched?.text.contains("\"hi\"") ?? false, fetched?.text ?? "")
        XCTAssertEqual(try socket.get("/v2/history/sub-key/demo/channel/c")?.status, 200)
        XCTAssertEqual(try socket.get("/v3/history/sub-key/demo/message-counts/c?timetoken=1")?.status, 200)
        let deleteSocket = try RawSocket(port: socket.port)
        deleteSocket.send("DELETE /v3/history/sub-key/demo/channel/c HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(deleteSocket.response()?.status, 200)
        try await socket.server.shutdown()
        XCTAssertEqual(onLoop.withLock { $0 }, [false, false, false, false], "no read may block an event loop")
    }
}
