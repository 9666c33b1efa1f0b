import Foundation

extension PubNodeClient {
    private func actionsPath(_ channel: String, _ rest: [String] = []) -> [String] {
        ["v1", "message-actions", Percent.encode(configuration.subscribeKey), "channel", Percent.encode(channel)] + rest
    }

    /// Adds an action (`type`, e.g. `"reaction"`, and `value`, e.g. `"smiley_face"`) to the message of
    /// `channel` published at `messageTimetoken`; returns the action as the node stored it.
    @discardableResult
    public func addMessageAction(channel: String, type: String, value: String,
                                 messageTimetoken: UInt64) async throws(PubNodeClientError) -> MessageAction {
        guard !type.isEmpty, !value.isEmpty else { throw .invalidArgument("an action needs a type and a value") }
        let body = (["type": .string(type), "value": .string(value)] as JSONValue).jsonData
        let answer = try await request(actionsPath(channel, ["message", String(messageTimetoken)]), method: "POST",
                                       body: body, headers: ["Content-Type": "application/json"])
        guard let data = answer["data"], let action = MessageAction(data, channel: channel) else {
            throw .decoding("unexpected add-action answer \(answer)")
        }
        return action
    }

    /// Removes the action added at `action` from the message of `channel` published at `message`.
    public func removeMessageActions(channel: String, message: UInt64, action: UInt64) async throws(PubNodeClientError) {
        _ = try await request(actionsPath(channel, ["message", String(message), "action", String(action)]),
                              method: "DELETE")
    }

    /// One page of the actions of `channel`, oldest first; `page.start` is exclusive and `page.end`
    /// inclusive. The result's `next` gives the bounds of the following (older) page, when there is one.
    public func fetchMessageActions(channel: String,
                                    page: MessageActionsBounds = MessageActionsBounds()) async throws(PubNodeClientError) -> MessageActionsPage {
        var query: [(String, String)] = []
        if let start = page.start { query.append(("start", String(start))) }
        if let end = page.end { query.append(("end", String(end))) }
        if let limit = page.limit {
            guard limit > 0 else { throw .invalidArgument("the limit must be greater than 0") }
            query.append(("limit", String(limit)))
        }
        let answer = try await request(actionsPath(channel), query: query)
        guard let items = answer["data"]?.arrayValue else { throw .decoding("unexpected actions answer \(answer)") }
        let actions = items.compactMap { MessageAction($0, channel: channel) }
        var next: MessageActionsBounds?
        if let more = answer["more"], more != .null, let start = more["start"]?.intValue, start >= 0 {
            next = MessageActionsBounds(start: UInt64(start), end: more["end"]?.intValue.flatMap { $0 >= 0 ? UInt64($0) : nil },
                                        limit: more["limit"]?.intValue.map { Int($0) })
        }
        return MessageActionsPage(actions: actions, next: next)
    }

    /// The stored messages of `channels`, oldest first; with `includeActions` (one channel only,
    /// at most 25 messages) each message carries its actions, from `/v3/history-with-actions`.
    public func fetchMessages(channels: [String], max: Int? = nil, start: UInt64? = nil, end: UInt64? = nil,
                              includeActions: Bool, includeMeta: Bool = false, includeUUID: Bool = true,
                              includeCustomMessageType: Bool = false) async throws(PubNodeClientError) -> [String: [HistoryMessage]] {
        guard includeActions else {
            return try await fetchMessageHistory(for: channels, max: max, start: start, end: end, includeMeta: includeMeta,
                                                 includeUUID: includeUUID, includeCustomMessageType: includeCustomMessageType)
        }
        guard channels.count == 1, let channel = channels.first else {
            throw .invalidArgument("history with actions takes exactly one channel")
        }
        if let max, !(1...25).contains(max) { throw .invalidArgument("max must be 1-25 with actions") }
        var query: [(String, String)] = [("max", String(max ?? 25))]
        if let start { query.append(("start", String(start))) }
        if let end { query.append(("end", String(end))) }
        query.append(("include_meta", includeMeta ? "true" : "false"))
        query.append(("include_uuid", includeUUID ? "true" : "false"))
        query.append(("include_custom_message_type", includeCustomMessageType ? "true" : "false"))
        let path = ["v3", "history-with-actions", "sub-key", Percent.encode(configuration.subscribeKey),
                    "channel", Percent.encode(channel)]
        let answer = try await request(path, query: query)
        var result: [String: [HistoryMessage]] = [:]
        for (name, items) in answer["channels"]?.objectValue ?? [:] {
            result[name] = (items.arrayValue ?? []).compactMap { item in
                guard let timetoken = item["timetoken"]?.intValue, timetoken >= 0 else { return nil }
                var message = historyMessage(item, timetoken: UInt64(timetoken))
                message.actions = Self.actions(item["actions"])
                return message
            }
        }
        return result
    }

    /// `{"<type>": {"<value>": [{"uuid": …, "actionTimetoken": …}]}}` as records.
    static func actions(_ json: JSONValue?) -> [String: [String: [MessageActionRecord]]] {
        (json?.objectValue ?? [:]).mapValues { values in
            (values.objectValue ?? [:]).mapValues { list in
                (list.arrayValue ?? []).compactMap { entry in
                    guard let uuid = entry["uuid"]?.stringValue, let timetoken = entry["actionTimetoken"]?.intValue,
                          timetoken >= 0 else { return nil }
                    return MessageActionRecord(uuid: uuid, actionTimetoken: UInt64(timetoken))
                }
            }
        }
    }
}
