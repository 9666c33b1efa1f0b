import NIOCore
import PubNodeCore

extension Router {
    /// `GET /v2/history/sub-key/{sub}/channel/{channel}`.
    func historyV2(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        guard s[2] == "sub-key", s[4] == "channel" else { return Self.noSuchEndpoint() }
        return answering(.history, keyset: s[3], history: true) { () throws(PubNodeError) in
            let query = HistoryQuery(range: try request.historyRange(),
                                     limit: try request.integer("count", default: 100, range: 1...100),
                                     fromOldest: try request.flag("reverse") ?? false)
            let includeToken = try request.flag("include_token") ?? false
            let includeMeta = try request.flag("include_meta") ?? false
            let history = historyRequest(request, query: query)
            let node = self.node
            return later(.history) { () throws(PubNodeError) in
                HistoryResponse.v2(try await node.history(history), includeToken: includeToken, includeMeta: includeMeta)
            }
        }
    }

    /// `/v3/history/sub-key/{sub}/channel/{channels}` (GET: fetch; DELETE: delete),
    /// `/v3/history/sub-key/{sub}/message-counts/{channels}` and
    /// `/v3/history-with-actions/sub-key/{sub}/channel/{channel}`.
    func historyV3(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        guard s[2] == "sub-key" else { return Self.noSuchEndpoint() }
        let node = self.node
        return answering(.history, keyset: s[3], history: true) { () throws(PubNodeError) in
            switch (request.method, s[1], s[4]) {
            case (.GET, "history", "channel"), (.GET, "history-with-actions", "channel"):
                let withActions = s[1] == "history-with-actions"
                let most = Set(Self.channelList(s[5])).count == 1 && !withActions ? 100 : 25
                let query = HistoryQuery(range: try request.historyRange(),
                                         limit: try request.integer("max", default: most, range: 1...most))
                let fields = HistoryResponse.Fields(
                    meta: try request.flag("include_meta") ?? false, uuid: try request.flag("include_uuid") ?? true,
                    messageType: try request.flag("include_message_type") ?? true,
                    customMessageType: try request.flag("include_custom_message_type") ?? false, actions: withActions)
                let history = historyRequest(request, query: query)
                return later(.history) { () throws(PubNodeError) in
                    let pages = try await node.fetchHistory(history, withActions: withActions)
                    let more = withActions ? Self.moreWithActions(pages, request: request, query: query) : nil
                    return HistoryResponse.fetch(pages, fields: fields, more: more)
                }
            case (.GET, "history", "message-counts"):
                let timetokens = try Self.countTimetokens(request)
                let history = historyRequest(request, query: HistoryQuery())
                return later(.history) { () throws(PubNodeError) in
                    HistoryResponse.counts(try await node.messageCounts(history, after: timetokens))
                }
            case (.DELETE, "history", "channel"):
                let history = historyRequest(request, query: HistoryQuery(range: try request.historyRange()))
                return later(.history) { () throws(PubNodeError) in
                    try await node.deleteHistory(history)
                    return .json(#"{"status":200,"error":false,"error_message":""}"#)
                }
            default:
                return Self.noSuchEndpoint()
            }
        }
    }

    /// `{"url":…,"start":"…","max":N}` when a history-with-actions page is full: the next (older)
    /// page starts at its oldest message.
    private static func moreWithActions(_ pages: [HistoryPage], request: PubNubRequest, query: HistoryQuery) -> [UInt8]? {
        guard let page = pages.first, page.messages.count == query.limit, let oldest = page.messages.first else { return nil }
        let s = request.segments
        var url = "/v3/history-with-actions/sub-key/\(MessageActionResponse.percentEncoded(s[3]))/channel/"
        url += "\(MessageActionResponse.percentEncoded(page.channel))?start=\(oldest.timetoken)"
        if let end = query.range.end { url += "&end=\(end)" }
        url += "&max=\(query.limit)"
        return Array(#"{"url":\#(JSONText.string(url)),"start":"\#(oldest.timetoken)","max":\#(query.limit)}"#.utf8)
    }

    private func historyRequest(_ request: PubNubRequest, query: HistoryQuery) -> HistoryRequest {
        var call = HistoryRequest(subscribeKey: request.segments[3], channels: Self.channelList(request.segments[5]),
                                  query: query, uuid: Self.uuid(request), authKey: request.query["auth"])
        call.signature = request.signed
        return call
    }

    /// A comma-separated channel list of a path segment, empty items kept (the node refuses them).
    private static func channelList(_ segment: String) -> [String] {
        segment.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// `timetoken` (one for all channels) or `channelsTimetoken` (one, or one per channel).
    private static func countTimetokens(_ request: PubNubRequest) throws(PubNodeError) -> [Timetoken] {
        switch (try request.timetoken("timetoken"), request.query["channelsTimetoken"]) {
        case (let single?, nil):
            return [single]
        case (nil, let listed?):
            var parsed: [Timetoken] = []
            for item in listed.split(separator: ",", omittingEmptySubsequences: false) {
                guard let timetoken = Timetoken(parsing: item) else {
                    throw .invalidParameter("channelsTimetoken must list non-negative integer timetokens")
                }
                parsed.append(timetoken)
            }
            return parsed
        case (nil, nil):
            throw .invalidParameter("timetoken or channelsTimetoken is required")
        case (_?, _?):
            throw .invalidParameter("give timetoken or channelsTimetoken, not both")
        }
    }
}
