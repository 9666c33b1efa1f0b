extension Node {
    /// Serves an on-request call (`/v1/blocks/sub-key/{sub}/{path}`) with the hook bound to its
    /// path; the hook's status, content type and body are the answer. `executor` is where the
    /// handler runs (the connection's event loop, so there is no thread hop).
    public func onRequest(_ request: HookRequest, uuid: String?, authKey: String?, signature: SignedRequest? = nil,
                          executor: (any TaskExecutor)? = nil) async throws(PubNodeError) -> HookResponse {
        try authorize(AccessRequest(.onRequest, subscribeKey: request.subscribeKey, uuid: uuid, authKey: authKey,
                                    signature: signature))
        guard let hook = hooks.requestHook(subscribeKey: request.subscribeKey, path: request.path) else {
            throw .notFound("No on-request hook serves '\(request.path)'")
        }
        return await hooks.respond(hook, to: request, executor: executor)
    }
}
