import NIOCore
import NIOHTTP1
import PubNodeCore

extension Router {
    /// `/v1/blocks/sub-key/{sub}/{path}`: answered by the on-request hook bound to the path, whose
    /// status, content type and body are returned as they are.
    func blocks(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        let subscribeKey = s[3]
        guard node.broker.keyset(subscribeKey) != nil else {
            return .reply(ErrorResponses.object(status: .badRequest, message: "Invalid Subscribe Key", service: "Blocks"))
        }
        let path = s[4...].joined(separator: "/")
        guard let hook = node.hooks.requestHook(subscribeKey: subscribeKey, path: path) else {
            return .reply(ErrorResponses.object(status: .notFound, message: "No on-request hook serves '\(path)'",
                                                service: "Blocks"))
        }
        let body = request.body
        let call = HookRequest(method: request.method.rawValue, subscribeKey: subscribeKey, path: path,
                               query: request.query, headers: Self.forwarded(request.headers),
                               body: body.map { Array($0.readableBytesView) } ?? [])
        let hooks = node.hooks
        return .deferred({ answer in
            let executor = EventLoopTaskExecutor.current
            Task(executorPreference: executor) {
                let response = await hooks.respond(hook, to: call, executor: executor)
                answer(HTTPReply(status: HTTPResponseStatus(statusCode: response.status), body: ByteBuffer(bytes: response.body),
                                 contentType: response.contentType))
            }
        }, waiters: [])
    }

    /// The request headers an on-request handler sees: content negotiation and client identity,
    /// never credentials.
    static func forwarded(_ headers: [String: String]) -> [String: String] {
        let kept: Set<String> = ["content-type", "accept", "user-agent", "x-forwarded-for"]
        return headers.filter { kept.contains($0.key) }
    }
}
