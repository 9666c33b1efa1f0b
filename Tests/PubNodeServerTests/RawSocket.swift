import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PubNodeCore
import PubNodeServer
import XCTest

/// A plain TCP client for tests that need exact bytes on a real socket (pipelining, odd requests).
final class RawSocket {
    private let descriptor: Int32
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds.
    init(port: Int, timeout: Int = 5) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw XCTSkip("cannot connect to port \(port)") }
    }

    deinit { close(descriptor) }

    /// Sends `text` as it is.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// The next complete response, or nil when none arrives in time.
    func response() -> Response? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let (response, used) = Response.parse(pending) {
                pending.removeFirst(used)
                return response
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            pending += buffer[0..<count]
        }
    }
}

/// An in-process node on a real loopback socket.
struct SocketNode {
    let server: PubNodeHTTPServer
    let port: Int

    static func start(_ node: Node) async throws -> SocketNode {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 1
        let server = PubNodeHTTPServer(configuration: configuration, node: node)
        return SocketNode(server: server, port: try await server.start())
    }

    /// Sends a GET on a new connection and returns the answer.
    func get(_ target: String) throws -> Response? {
        let socket = try RawSocket(port: port)
        socket.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
        return socket.response()
    }
}
