import Foundation

/// A stored message returned by `fetchMessageHistory`.
public struct HistoryMessage: Sendable, Equatable {
    /// The payload.
    public var payload: JSONValue
    /// The publish timetoken.
    public var timetoken: UInt64
    /// The publisher's user id, when known.
    public var publisher: String?
    /// The `meta` published with it (when requested and given).
    public var meta: JSONValue?
    /// The custom message type (when requested and given).
    public var customMessageType: String?
    /// Why the payload could not be decrypted (it is then returned as stored); nil otherwise.
    public var decryptionError: PubNodeClientError?
    /// The message's actions (`fetchMessages(includeActions: true)` only): type → value → who and when.
    public var actions: [String: [String: [MessageActionRecord]]] = [:]

    /// The payload decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(PubNodeClientError) -> T {
        try payload.decode(type)
    }
}

extension PubNodeClient {
    private func history(_ rest: [String]) -> [String] {
        ["v3", "history", "sub-key", Percent.encode(configuration.subscribeKey)] + rest
    }

    private func bounds(start: UInt64?, end: UInt64?) -> [(String, String)] {
        var query: [(String, String)] = []
        if let start { query.append(("start", String(start))) }
        if let end { query.append(("end", String(end))) }
        return query
    }

    /// The stored messages of `channels`, oldest first per channel (channels without any are left out).
    ///
    /// `start` is exclusive and `end` inclusive; the page is the newest `max` of the slice.
    public func fetchMessageHistory(for channels: [String], max: Int? = nil, start: UInt64? = nil, end: UInt64? = nil,
                                    includeMeta: Bool = false, includeUUID: Bool = true,
                                    includeCustomMessageType: Bool = false) async throws(PubNodeClientError) -> [String: [HistoryMessage]] {
        guard !channels.isEmpty else { throw .invalidArgument("no channels given") }
        var query = bounds(start: start, end: end)
        if let max { query.append(("max", String(max))) }
        query.append(("include_meta", includeMeta ? "true" : "false"))
        query.append(("include_uuid", includeUUID ? "true" : "false"))
        query.append(("include_custom_message_type", includeCustomMessageType ? "true" : "false"))
        let answer = try await request(history(["channel", Percent.list(channels)]), query: query)
        var result: [String: [HistoryMessage]] = [:]
        for (channel, items) in answer["channels"]?.objectValue ?? [:] {
            result[channel] = (items.arrayValue ?? []).compactMap { item in
                guard let timetoken = item["timetoken"]?.intValue else { return nil }
                return historyMessage(item, timetoken: UInt64(timetoken))
            }
        }
        return result
    }

    /// One stored message of a history answer, its payload decrypted when a crypto module is configured.
    func historyMessage(_ item: JSONValue, timetoken: UInt64) -> HistoryMessage {
        let meta = item["meta"].flatMap { $0 == .string("") ? nil : $0 }
        var message = HistoryMessage(payload: item["message"] ?? .null, timetoken: timetoken,
                                     publisher: item["uuid"]?.stringValue, meta: meta,
                                     customMessageType: item["custom_message_type"]?.stringValue)
        if let module = configuration.cryptoModule {
            do {
                message.payload = try module.decryptPayload(message.payload)
            } catch {
                message.decryptionError = error
            }
        }
        return message
    }

    /// Deletes the stored messages of `channel` between `start` (exclusive) and `end` (inclusive); all without bounds.
    public func deleteMessageHistory(from channel: String, start: UInt64? = nil, end: UInt64? = nil) async throws(PubNodeClientError) {
        _ = try await request(history(["channel", Percent.encode(channel)]), method: "DELETE",
                              query: bounds(start: start, end: end))
    }

    /// How many stored messages each channel has with a timetoken greater than its given one.
    public func messageCounts(channels: [String: UInt64]) async throws(PubNodeClientError) -> [String: Int] {
        guard !channels.isEmpty else { throw .invalidArgument("no channels given") }
        let names = channels.keys.sorted()
        let tokens = names.map { String(channels[$0] ?? 0) }.joined(separator: ",")
        let answer = try await request(history(["message-counts", Percent.list(names)]),
                                       query: [("channelsTimetoken", tokens)])
        return (answer["channels"]?.objectValue ?? [:]).compactMapValues { $0.intValue.map { Int($0) } }
    }

    /// How many stored messages each of `channels` has with a timetoken greater than `timetoken`.
    public func messageCounts(channels: [String], since timetoken: UInt64) async throws(PubNodeClientError) -> [String: Int] {
        try await messageCounts(channels: Dictionary(channels.map { ($0, timetoken) }, uniquingKeysWith: { a, _ in a }))
    }
}
