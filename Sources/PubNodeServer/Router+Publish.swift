import NIOCore
import PubNodeCore

extension Router {
    /// `GET /publish/{pub}/{sub}/0/{channel}/{callback}/{json}`, its POST form (JSON body), and the
    /// same shapes under `/signal`.
    func publish(_ request: PubNubRequest, kind: MessageKind) -> RouteAction {
        answering(.publish) { () throws(PubNodeError) in
            try answer(node.begin(Self.publishRequest(request, kind: kind)))
        }
    }

    /// A publish already read off its target (`PublishTarget`), answered as `publish(_:kind:)`
    /// answers the same request.
    func publish(_ request: PublishRequest) -> RouteAction {
        answering(.publish) { () throws(PubNodeError) in try answer(node.begin(request)) }
    }

    /// A connection's repeated publish (`RepeatedPublish`): its prepared request with a new
    /// message, answered as `publish(_:)` answers the same request.
    func publish(_ prepared: PreparedPublish, payload: [UInt8]) -> RouteAction {
        answering(.publish) { () throws(PubNodeError) in try answer(node.begin(prepared, payload: payload)) }
    }

    /// Decodes a publish's path, query and (POST) body: what `route(_:)` hands the node for a
    /// publish (`kind` `.message`) or signal (`.signal`) target.
    public static func publishRequest(_ request: PubNubRequest, kind: MessageKind) throws(PubNodeError) -> PublishRequest {
        let s = request.segments
        let payload: [UInt8]
        if request.method == .POST {
            guard var body = request.body, body.readableBytes > 0 else {
                throw .invalidParameter("POST publish needs a JSON body")
            }
            payload = body.readBytes(length: body.readableBytes) ?? []
        } else {
            payload = Array(s[6].utf8)
        }
        var publishRequest = PublishRequest(
            publishKey: s[1], subscribeKey: s[2], channel: s[4], payload: payload,
            meta: request.query["meta"].map { Array($0.utf8) }, uuid: request.query["uuid"], kind: kind,
            store: try request.flag("store"), noReplication: try request.flag("norep") ?? false,
            ttlHours: try request.integer("ttl"), customMessageType: request.query["custom_message_type"],
            authKey: request.query["auth"])
        publishRequest.signature = request.signed
        return publishRequest
    }

    /// Answers with the outcome of a publish the node has begun.
    private func answer(_ step: Node.PublishStep) -> RouteAction {
        switch step {
        case .done(let result):
            return Self.answer(result)
        case .accepting(let acceptance):
            let node = self.node
            return .deferred({ reply in
                acceptance.whenDone { outcome in
                    switch outcome.map(Self.answer) {
                    case .success(.reply(let sent)): reply(sent)
                    case .success(.sent(let timetoken)): reply(.sent(timetoken))
                    case .success(.deferred(let start)): start(reply)
                    case .success(.poll): break
                    case .failure(let error): reply(ErrorResponses.reply(error, shape: .publish, timetoken: node.time()))
                    }
                }
            })
        case .awaitingHooks(let pending):
            // The before hooks run as a task on the connection's event loop (no thread hop);
            // while they await, the loop serves other connections.
            let node = self.node
            return .deferred({ reply in
                let executor = EventLoopTaskExecutor.current
                Task(executorPreference: executor) {
                    do throws(PubNodeError) {
                        let result = try await node.complete(pending, executor: executor)
                        switch Self.answer(result) {
                        case .reply(let sent): reply(sent)
                        case .sent(let timetoken): reply(.sent(timetoken))
                        case .deferred(let start): start(reply)
                        case .poll: break
                        }
                    } catch {
                        reply(ErrorResponses.reply(error, shape: .publish, timetoken: node.time()))
                    }
                }
            })
        }
    }

    /// The answer to an accepted publish: `[1,"Sent","<tt>"]` at once (`sent`), or, in strict
    /// history mode, once the history commit is done.
    static func answer(_ result: Node.PublishResult) -> RouteAction {
        guard let commit = result.commit else { return .sent(result.timetoken) }
        let sent = HTTPReply.sent(result.timetoken)
        // Strict history mode: delivered live at once, acknowledged once durable (or refused if
        // the commit failed: delivered, but not stored).
        let timetoken = result.timetoken
        return .deferred({ answer in
            commit.whenDone { failure in
                answer(failure.map {
                    ErrorResponses.reply(refusal($0), shape: .publish, timetoken: timetoken)
                } ?? sent)
            }
        })
    }

    /// A stored publish the history could not take: 503 while the database is unreachable or the
    /// backlog is full (retry later), 500 for any other storage failure.
    static func refusal(_ failure: HistoryError) -> PubNodeError {
        if case .unavailable = failure { return .unavailable(failure.description) }
        return .storageFailed(failure.description)
    }
}
