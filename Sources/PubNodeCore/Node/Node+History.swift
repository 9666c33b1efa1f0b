/// A history read or delete (`/v2/history`, `/v3/history`, `/v3/history-with-actions`,
/// `/v3/history/…/message-counts`), as decoded from the wire.
public struct HistoryRequest: Sendable {
    /// The subscribe key.
    public var subscribeKey: String
    /// Channel names as given (validated by the node; repeats are dropped).
    public var channels: [String]
    /// The slice, page size and direction (reads), or the slice (deletes).
    public var query: HistoryQuery
    /// The caller's uuid, if given.
    public var uuid: String?
    /// The caller's auth key or token.
    public var authKey: String?
    /// The request as signed, when it carries a `signature` (the transport fills it in).
    public var signature: SignedRequest?

    /// Creates a history request.
    public init(subscribeKey: String, channels: [String], query: HistoryQuery = HistoryQuery(), uuid: String? = nil,
                authKey: String? = nil) {
        self.subscribeKey = subscribeKey
        self.channels = channels
        self.query = query
        self.uuid = uuid
        self.authKey = authKey
    }
}

/// One channel's page of a multi-channel fetch.
public struct HistoryPage: Sendable {
    /// The channel.
    public var channel: String
    /// Its messages, oldest first.
    public var messages: [StoredMessage]
    /// With actions (`/v3/history-with-actions`): every action of those messages, by message then
    /// action timetoken; otherwise empty.
    public var actions: [MessageAction] = []
}

extension Node {
    /// Most channels in one v3 fetch.
    public static let maxFetchChannels = 500
    /// Most channels in one message-counts request.
    public static let maxCountChannels = 100
    /// Message counts stop at this value, as PubNub's do.
    public static let maxMessageCount = 10_000

    /// A page of one channel's history (v2). Runs off the caller's thread.
    public func history(_ request: HistoryRequest) async throws(PubNodeError) -> [StoredMessage] {
        let (history, channels) = try historyAccess(.history, request, limit: 1, permission: .read)
        return try await readHistory { () throws(PubNodeError) in
            try history.fetch(subscribeKey: request.subscribeKey, channel: channels[0], query: request.query)
        }
    }

    /// Pages of several channels' history (v3), without the channels that have none; with
    /// actions, exactly one channel. Runs off the caller's thread.
    public func fetchHistory(_ request: HistoryRequest, withActions: Bool) async throws(PubNodeError) -> [HistoryPage] {
        let limit = withActions ? 1 : Self.maxFetchChannels
        let (history, channels) = try historyAccess(.history, request, limit: limit, permission: .read)
        let actions = messageActions
        return try await readHistory { () throws(PubNodeError) in
            var pages: [HistoryPage] = []
            for channel in channels {
                let messages = try history.fetch(subscribeKey: request.subscribeKey, channel: channel, query: request.query)
                guard !messages.isEmpty else { continue }
                var page = HistoryPage(channel: channel, messages: messages)
                if withActions {
                    do throws(HistoryError) {
                        page.actions = try actions.actions(subscribeKey: request.subscribeKey, channel: channel,
                                                           messages: messages.map(\.timetoken.rawValue),
                                                           now: history.clock.nowNanoseconds())
                    } catch { throw .storageFailed(error.description) }
                }
                pages.append(page)
            }
            return pages
        }
    }

    /// Messages stored after a timetoken per channel, capped at `maxMessageCount`: `timetokens`
    /// holds one timetoken for all channels or one per channel. Runs off the caller's thread.
    public func messageCounts(_ request: HistoryRequest, after timetokens: [Timetoken])
        async throws(PubNodeError) -> [(channel: String, count: Int)] {
        let (history, channels) = try historyAccess(.messageCounts, request, limit: Self.maxCountChannels, permission: .read,
                                                    check: { channels throws(PubNodeError) in
            guard timetokens.count == 1 || timetokens.count == channels.count else {
                throw .invalidParameter("channelsTimetoken must list one timetoken, or one per channel (\(channels.count))")
            }
        })
        let after = timetokens.count == 1 ? Array(repeating: timetokens[0], count: channels.count) : timetokens
        return try await readHistory { () throws(PubNodeError) in
            var counts: [(channel: String, count: Int)] = []
            for (channel, timetoken) in zip(channels, after) {
                counts.append((channel, try history.count(subscribeKey: request.subscribeKey, channel: channel,
                                                          after: timetoken, limit: Self.maxMessageCount)))
            }
            return counts
        }
    }

    /// Deletes one channel's messages in the request's range, with their message actions. Runs
    /// off the caller's thread.
    public func deleteHistory(_ request: HistoryRequest) async throws(PubNodeError) {
        let (history, channels) = try historyAccess(.deleteHistory, request, limit: 1, permission: .delete)
        let actions = messageActions
        _ = try await readHistory { () throws(PubNodeError) in
            try history.delete(subscribeKey: request.subscribeKey, channel: channels[0], range: request.query.range)
            do throws(HistoryError) {
                try actions.delete(subscribeKey: request.subscribeKey, channel: channels[0], messages: request.query.range)
            } catch { throw .storageFailed(error.description) }
        }
    }

    /// Checks the keyset keeps history, validates the channels, authorizes once.
    private func historyAccess(_ operation: AccessRequest.Operation, _ request: HistoryRequest, limit: Int,
                               permission: AccessRequest.Permission,
                               check: ([String]) throws(PubNodeError) -> Void = { _ in })
        throws(PubNodeError) -> (MessageHistory, [String]) {
        try requireHistory(request.subscribeKey)
        guard let history else { throw .storageDisabled }
        let channels = try Self.historyChannels(request.channels, limit: limit)
        try check(channels)
        try authorize(AccessRequest(operation, subscribeKey: request.subscribeKey, resources: .channels(channels, permission),
                                    uuid: request.uuid, authKey: request.authKey, signature: request.signature))
        return (history, channels)
    }

    /// Runs a store call on the history read queue, so no event loop waits for the disk.
    func readHistory<T: Sendable>(_ body: @escaping @Sendable () throws(PubNodeError) -> T)
        async throws(PubNodeError) -> T {
        let result: Result<T, PubNodeError> = await withCheckedContinuation { continuation in
            historyReads.async {
                continuation.resume(returning: Result { () throws(PubNodeError) -> T in try body() })
            }
        }
        return try result.get()
    }

    /// A history path's channel list: validated, without repeats, at most `limit`.
    static func historyChannels(_ names: [String], limit: Int) throws(PubNodeError) -> [String] {
        var seen = Set<String>()
        var channels: [String] = []
        for name in names {
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
