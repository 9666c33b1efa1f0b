import NIOCore
import NIOHTTP1
import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

extension Router {
    /// Routes an objects request with `body` and `headers` and returns status, parsed body and text.
    func objects(_ method: HTTPMethod, _ uri: String, body: String? = nil,
                 headers: [String: String] = [:]) async throws -> (status: Int, json: JSON, text: String) {
        var request = try PubNubRequest(method: method, uri: uri, body: body.map { ByteBuffer(string: $0) })
        request.headers = headers
        guard let reply = await answer(request) else {
            XCTFail("no answer to \(uri)")
            return (0, .invalid, "")
        }
        let text = String(buffer: reply.body)
        return (Int(reply.status.code), JSON.parse(Array(text.utf8)), text)
    }
}

extension RawSocket {
    /// Sends one request with a body and headers.
    func send(_ method: String, _ target: String, body: String = "", headers: [String: String] = [:]) {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        send(head + "\r\n" + body)
    }
}

extension JSON {
    /// The member names of an object.
    var keys: Set<String> {
        if case .object(let members) = self { return Set(members.keys) }
        return []
    }
}
