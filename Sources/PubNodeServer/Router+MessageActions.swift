import NIOCore
import PubNodeCore

extension Router {
    /// The `service` named in message action errors.
    static let messageActionsService = "Message Actions"

    /// `/v1/message-actions/{sub}/channel/{ch}` (GET: list), `…/message/{message_tt}` (POST: add) and
    /// `…/message/{message_tt}/action/{action_tt}` (DELETE: remove).
    func messageActions(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        let shape = ErrorResponses.Shape.object(service: Self.messageActionsService)
        guard s[3] == "channel" else { return Self.noSuchEndpoint() }
        let node = self.node
        return answering(shape, keyset: s[2]) { () throws(PubNodeError) in
            try node.requireKeyset(s[2])
            switch (request.method, s.count) {
            case (.GET, 5):
                let query = try Self.actionQuery(request)
                return later(shape) { () throws(PubNodeError) in
                    MessageActionResponse.page(try await node.messageActions(query), query: query)
                }
            case (.POST, 7) where s[5] == "message":
                let (type, value) = try Self.actionBody(request)
                let call = try actionRequest(request, .add(messageTimetoken: try Self.pathTimetoken(s[6], "message timetoken"),
                                                           type: type, value: value))
                return later(shape) { () throws(PubNodeError) in
                    MessageActionResponse.added(try await node.addMessageAction(call))
                }
            case (.DELETE, 9) where s[5] == "message" && s[7] == "action":
                let call = try actionRequest(request, .remove(
                    messageTimetoken: try Self.pathTimetoken(s[6], "message timetoken"),
                    actionTimetoken: try Self.pathTimetoken(s[8], "action timetoken")))
                return later(shape) { () throws(PubNodeError) in
                    try await node.removeMessageAction(call)
                    return .json(#"{"status":200,"data":{}}"#)
                }
            default:
                return Self.noSuchEndpoint(service: Self.messageActionsService)
            }
        }
    }

    private func actionRequest(_ request: PubNubRequest, _ action: MessageActionRequest.Action)
        throws(PubNodeError) -> MessageActionRequest {
        var call = MessageActionRequest(subscribeKey: request.segments[2], channel: request.segments[4], action: action,
                                        uuid: Self.uuid(request), authKey: request.query["auth"])
        call.signature = request.signed
        return call
    }

    private static func actionQuery(_ request: PubNubRequest) throws(PubNodeError) -> MessageActionQuery {
        var query = MessageActionQuery(subscribeKey: request.segments[2], channel: request.segments[4],
                                       range: try request.historyRange(),
                                       limit: try request.integer("limit", default: Node.maxActionsPerPage,
                                                                  range: 1...Node.maxActionsPerPage),
                                       uuid: uuid(request), authKey: request.query["auth"])
        query.signature = request.signed
        return query
    }

    /// The add body: a JSON object with a string `type` and a string `value`.
    private static func actionBody(_ request: PubNubRequest) throws(PubNodeError) -> (String, String) {
        guard var body = request.body, body.readableBytes > 0 else {
            throw .invalidParameter("the body must be a JSON object with type and value")
        }
        let bytes = body.readBytes(length: body.readableBytes) ?? []
        guard let members = JSONObjectText.members(bytes) else {
            throw .invalidParameter("the body must be a JSON object with type and value")
        }
        guard let type = JSONObjectText.string(members["type"]) else { throw .invalidParameter("type must be a string") }
        guard let value = JSONObjectText.string(members["value"]) else { throw .invalidParameter("value must be a string") }
        return (type, value)
    }

    private static func pathTimetoken(_ segment: String, _ name: String) throws(PubNodeError) -> Timetoken {
        guard let timetoken = Timetoken(parsing: Substring(segment)) else {
            throw .invalidParameter("\(name) must be a positive integer timetoken (got '\(segment.prefix(40))')")
        }
        return timetoken
    }
}
