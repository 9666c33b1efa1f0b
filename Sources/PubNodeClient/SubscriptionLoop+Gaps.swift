import Foundation

extension SubscriptionLoop {
    /// The most history pages read to fill one channel's gap (100 messages each).
    static let maxGapPages = 1_000

    /// `envelopes` preceded by the messages the node's buffers dropped before this client read them.
    ///
    /// The node's answer lists, in `missed`, each channel whose buffer had dropped messages newer
    /// than `cursor`, and the newest timetoken dropped (`through`). Those messages are read from
    /// history — the slice `cursor < t ≤ min(through, next)`, so a later answer's slice never
    /// overlaps this one — turned into envelopes of the subscribe answer's shape, and merged with
    /// the live ones in timetoken order. The dedupe cache drops any message seen twice.
    func withMissedMessages(_ envelopes: [JSONValue], answer: JSONValue, after cursor: UInt64, next: UInt64) async -> [JSONValue] {
        guard configuration.fillsGapsFromHistory, configuration.filterExpression?.isEmpty ?? true else { return envelopes }
        var recovered: [JSONValue] = []
        for gap in answer["missed"]?.arrayValue ?? [] {
            guard let channel = gap["channel"]?.stringValue, let through = gap["through"]?.intValue, through > 0 else { continue }
            let upper = min(UInt64(through), next)
            guard upper > cursor else { continue }
            do {
                recovered += try await storedEnvelopes(channel: channel, after: cursor, through: upper)
            } catch {
                hub.emit(.error(error))
            }
        }
        guard !recovered.isEmpty else { return envelopes }
        // A stable sort: recovered messages are older than the live ones of their channel.
        return (recovered + envelopes).enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element["p"]?["t"]?.intValue ?? 0, rhs.element["p"]?["t"]?.intValue ?? 0)
            return left == right ? lhs.offset < rhs.offset : left < right
        }.map(\.element)
    }

    /// The stored messages of `channel` with `cursor < t ≤ through`, oldest first, as envelopes.
    private func storedEnvelopes(channel: String, after cursor: UInt64, through: UInt64) async throws(PubNodeClientError) -> [JSONValue] {
        var pages: [[JSONValue]] = []
        var start = through + 1
        for _ in 0..<Self.maxGapPages {
            // `start` is exclusive and `end` inclusive: the newest 100 of `cursor < t < start`.
            let query = [("start", String(start)), ("end", String(cursor + 1)), ("max", "100"),
                         ("include_meta", "true"), ("include_uuid", "true"), ("include_custom_message_type", "true")]
            let path = ["v3", "history", "sub-key", Percent.encode(configuration.subscribeKey), "channel", Percent.encode(channel)]
            let answer = try await PubNodeClient.send(try request(path, query: query, timeout: configuration.requestTimeout),
                                                      through: transport)
            let items = answer["channels"]?[channel]?.arrayValue ?? []
            let page = items.compactMap { Self.envelope(of: $0, channel: channel) }
            pages.append(page)
            guard items.count >= 100, let oldest = items.first?["timetoken"]?.intValue, UInt64(oldest) > cursor + 1 else { break }
            start = UInt64(oldest)
        }
        return pages.reversed().flatMap { $0 }
    }

    /// A history item in the subscribe envelope's shape (`c`, `p.t`, `d`, `i`, `u`, `cmt`).
    private static func envelope(of item: JSONValue, channel: String) -> JSONValue? {
        guard let timetoken = item["timetoken"]?.intValue else { return nil }
        var fields: [String: JSONValue] = ["c": .string(channel), "p": .object(["t": .string(String(timetoken))]),
                                           "d": item["message"] ?? .null]
        if let uuid = item["uuid"]?.stringValue { fields["i"] = .string(uuid) }
        if let meta = item["meta"], meta != .string("") { fields["u"] = meta }
        if let type = item["custom_message_type"]?.stringValue { fields["cmt"] = .string(type) }
        return .object(fields)
    }
}
