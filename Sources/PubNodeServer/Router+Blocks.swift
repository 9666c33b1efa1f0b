import NIOCore
import NIOHTTP1
import PubNodeCore

extension Router {
    /// `/v1/blocks/sub-key/{sub}/{path}`: answered by the on-request hook bound to the path, whose
    /// status, content type and body are returned as they are.
    func blocks(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        guard [.GET, .POST, .PUT, .DELETE].contains(request.method) else {
            return .reply(ErrorResponses.object(status: .methodNotAllowed, message: "On-request hooks answer GET, POST, PUT and DELETE",
                                                service: "Blocks"))
        }
        // The hook sees the path as a name, never as something to resolve: no empty, `.` or `..`
        // parts, and no `/` smuggled in as `%2F`.
        guard s[4...].allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") }) else {
            return .reply(ErrorResponses.object(status: .badRequest, message: "Invalid on-request path", service: "Blocks"))
        }
        let call = HookRequest(method: request.method.rawValue, subscribeKey: s[3], path: s[4...].joined(separator: "/"),
                               query: request.query.dictionary, headers: Self.forwarded(request.headers, peer: request.peerAddress),
                               body: request.body.map { Array($0.readableBytesView) } ?? [])
        let (node, uuid, auth, signed) = (self.node, Self.uuid(request), request.query["auth"], request.signed)
        return .deferred({ answer in
            let executor = EventLoopTaskExecutor.current
            Task(executorPreference: executor) {
                do throws(PubNodeError) {
                    let response = try await node.onRequest(call, uuid: uuid, authKey: auth, signature: signed,
                                                              executor: executor)
                    answer(HTTPReply(status: HTTPResponseStatus(statusCode: response.status),
                                     body: ByteBuffer(bytes: response.body), contentType: response.contentType))
                } catch .invalidKey {
                    answer(ErrorResponses.object(status: .badRequest, message: "Invalid Subscribe Key", service: "Blocks"))
                } catch {
                    answer(ErrorResponses.reply(error, shape: .object(service: "Blocks"), timetoken: node.time()))
                }
            }
        })
    }

    /// The request headers an on-request handler sees: content negotiation and the user agent,
    /// never credentials; `x-forwarded-for` is the peer the node saw, never the client's own claim
    /// (which anyone can write).
    static func forwarded(_ headers: [String: String], peer: String?) -> [String: String] {
        let kept: Set<String> = ["content-type", "accept", "user-agent"]
        var forwarded = headers.filter { kept.contains($0.key) }
        if let peer { forwarded["x-forwarded-for"] = peer }
        return forwarded
    }
}
