import NIOCore
import PubNodeCore

extension Router {
    /// Most channels in one v3 fetch.
    static let maxFetchChannels = 500
    /// Most channels in one message-counts request.
    static let maxCountChannels = 100
    /// Message counts stop at this value, as PubNub's do.
    static let maxMessageCount = 10_000

    /// `GET /v2/history/sub-key/{sub}/channel/{channel}`.
    func historyV2(_ request: PubNubRequest) -> RouteAction {
        do throws(PubNodeError) {
            let s = request.segments
            guard s[2] == "sub-key", s[4] == "channel" else { return noSuchHistoryEndpoint() }
            let history = try storage(s[3])
            let channel = try Self.historyChannels(s[5], limit: 1)[0]
            let query = HistoryQuery(range: try request.historyRange(),
                                     limit: try request.integer("count", default: 100, range: 1...100),
                                     fromOldest: try request.flag("reverse") ?? false)
            let includeToken = try request.flag("include_token") ?? false
            let includeMeta = try request.flag("include_meta") ?? false
            try authorizeHistory(request, subscribeKey: s[3], channels: [channel], operation: .history)
            let messages = try history.fetch(subscribeKey: s[3], channel: channel, query: query)
            return .reply(HistoryResponse.v2(messages, includeToken: includeToken, includeMeta: includeMeta))
        } catch {
            return refuse(error, .history)
        }
    }

    /// `/v3/history/sub-key/{sub}/channel/{channels}` (GET: fetch; DELETE: delete),
    /// `/v3/history/sub-key/{sub}/message-counts/{channels}` and
    /// `/v3/history-with-actions/sub-key/{sub}/channel/{channel}`.
    func historyV3(_ request: PubNubRequest) -> RouteAction {
        do throws(PubNodeError) {
            let s = request.segments
            guard s[2] == "sub-key" else { return noSuchHistoryEndpoint() }
            switch (request.method, s[1], s[4]) {
            case (.GET, "history", "channel"):
                return .reply(try fetch(request, withActions: false))
            case (.GET, "history-with-actions", "channel"):
                return .reply(try fetch(request, withActions: true))
            case (.GET, "history", "message-counts"):
                return .reply(try messageCounts(request))
            case (.DELETE, "history", "channel"):
                let history = try storage(s[3])
                let channel = try Self.historyChannels(s[5], limit: 1)[0]
                let range = try request.historyRange()
                try authorizeHistory(request, subscribeKey: s[3], channels: [channel], operation: .deleteHistory)
                try history.delete(subscribeKey: s[3], channel: channel, range: range)
                return .reply(.json(#"{"status":200,"error":false,"error_message":""}"#))
            default:
                return noSuchHistoryEndpoint()
            }
        } catch {
            return refuse(error, .history)
        }
    }

    private func fetch(_ request: PubNubRequest, withActions: Bool) throws(PubNodeError) -> HTTPReply {
        let s = request.segments
        let history = try storage(s[3])
        let channels = try Self.historyChannels(s[5], limit: withActions ? 1 : Self.maxFetchChannels)
        let most = channels.count == 1 && !withActions ? 100 : 25
        let query = HistoryQuery(range: try request.historyRange(),
                                 limit: try request.integer("max", default: most, range: 1...most))
        let include = HistoryResponse.Fields(
            meta: try request.flag("include_meta") ?? false, uuid: try request.flag("include_uuid") ?? true,
            messageType: try request.flag("include_message_type") ?? true,
            customMessageType: try request.flag("include_custom_message_type") ?? false)
        try authorizeHistory(request, subscribeKey: s[3], channels: channels, operation: .history)
        var pages: [(String, [StoredMessage])] = []
        for channel in channels {
            let messages = try history.fetch(subscribeKey: s[3], channel: channel, query: query)
            if !messages.isEmpty { pages.append((channel, messages)) }
        }
        return HistoryResponse.fetch(pages, fields: include)
    }

    private func messageCounts(_ request: PubNubRequest) throws(PubNodeError) -> HTTPReply {
        let s = request.segments
        let history = try storage(s[3])
        let channels = try Self.historyChannels(s[5], limit: Self.maxCountChannels)
        let single = try request.timetoken("timetoken")
        let listed = request.query["channelsTimetoken"]
        let timetokens: [Timetoken]
        switch (single, listed) {
        case (let single?, nil):
            timetokens = Array(repeating: single, count: channels.count)
        case (nil, let listed?):
            var parsed: [Timetoken] = []
            for item in listed.split(separator: ",", omittingEmptySubsequences: false) {
                guard let timetoken = Timetoken(parsing: item) else {
                    throw .invalidParameter("channelsTimetoken must list non-negative integer timetokens")
                }
                parsed.append(timetoken)
            }
            if parsed.count == 1 { parsed = Array(repeating: parsed[0], count: channels.count) }
            guard parsed.count == channels.count else {
                throw .invalidParameter("channelsTimetoken must list one timetoken, or one per channel (\(channels.count))")
            }
            timetokens = parsed
        case (nil, nil):
            throw .invalidParameter("timetoken or channelsTimetoken is required")
        case (_?, _?):
            throw .invalidParameter("give timetoken or channelsTimetoken, not both")
        }
        try authorizeHistory(request, subscribeKey: s[3], channels: channels, operation: .history)
        var counts: [(String, Int)] = []
        for (channel, after) in zip(channels, timetokens) {
            counts.append((channel, try history.count(subscribeKey: s[3], channel: channel, after: after,
                                                      limit: Self.maxMessageCount)))
        }
        return HistoryResponse.counts(counts)
    }

    /// The history of a configured subscribe key, or `invalidKey` / `storageDisabled`.
    private func storage(_ subscribeKey: String) throws(PubNodeError) -> MessageHistory {
        _ = try node.keyset(subscribeKey)
        guard let history = node.history, history.isEnabled(subscribeKey) else { throw .storageDisabled }
        return history
    }

    private func authorizeHistory(_ request: PubNubRequest, subscribeKey: String, channels: [String],
                                  operation: AccessRequest.Operation) throws(PubNodeError) {
        try node.authorizer.authorize(AccessRequest(operation: operation, subscribeKey: subscribeKey, channels: channels,
                                                       uuid: request.query["uuid"], authKey: request.query["auth"]))
    }

    private func noSuchHistoryEndpoint() -> RouteAction {
        .reply(ErrorResponses.object(status: .notFound, message: "Not Found: no such endpoint"))
    }

    /// The comma-separated channel list of a history path: validated, without repeats, at most `limit`.
    static func historyChannels(_ segment: String, limit: Int) throws(PubNodeError) -> [String] {
        var seen = Set<String>()
        var channels: [String] = []
        for item in segment.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(item)
            do { try NameRules.validateChannel(name) } catch { throw .invalidChannel(name, error) }
            if NameRules.isWildcard(name) { throw .invalidParameter("history cannot read wildcard channel '\(name)'") }
            if seen.insert(name).inserted { channels.append(name) }
        }
        guard channels.count <= limit else {
            throw .invalidParameter(limit == 1 ? "name exactly one channel" : "too many channels (limit \(limit))")
        }
        return channels
    }
}
