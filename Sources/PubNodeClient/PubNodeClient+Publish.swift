import Foundation

extension PubNodeClient {
    /// The node's current time as a 17-digit timetoken (100 ns units since 1970).
    public func time() async throws(PubNodeClientError) -> UInt64 {
        let answer = try await request(["time", "0"])
        guard let value = answer[0]?.intValue, value >= 0 else { throw .decoding("unexpected time answer \(answer)") }
        return UInt64(value)
    }

    /// Publishes `message` (any `Encodable`, e.g. a `JSONValue`) to `channel` and returns its timetoken.
    /// With a `cryptoModule` configured, the message's JSON text is sent encrypted, as a base64 string.
    ///
    /// - Parameters:
    ///   - meta: JSON delivered with the message as `meta` (`u`).
    ///   - shouldStore: `false` keeps it out of history (`store=0`); `nil` follows the keyset.
    ///   - storeTTL: hours history keeps it (`0`: forever).
    ///   - shouldCompress: send it as a gzip-encoded `POST` body instead of a `GET` path segment.
    ///   - customMessageType: a type label delivered as `cmt`.
    @discardableResult
    public func publish(channel: String, message: some Encodable, meta: (any Encodable & Sendable)? = nil,
                        shouldStore: Bool? = nil, storeTTL: Int? = nil, shouldCompress: Bool = false,
                        customMessageType: String? = nil) async throws(PubNodeClientError) -> UInt64 {
        var query: [(String, String)] = []
        if let meta { query.append(("meta", String(decoding: try JSONValue.encode(meta), as: UTF8.self))) }
        if let shouldStore { query.append(("store", shouldStore ? "1" : "0")) }
        if let storeTTL { query.append(("ttl", String(storeTTL))) }
        if let customMessageType { query.append(("custom_message_type", customMessageType)) }
        return try await send(kind: "publish", channel: channel, payload: try encrypted(message),
                              query: query, post: shouldCompress, gzip: shouldCompress)
    }

    /// Sends a signal (a small payload, at most 30 bytes of JSON by default) to `channel`; signals
    /// are never encrypted, as with the SDKs.
    @discardableResult
    public func signal(channel: String, message: some Encodable) async throws(PubNodeClientError) -> UInt64 {
        try await send(kind: "signal", channel: channel, payload: try JSONValue.encode(message), query: [],
                       post: false, gzip: false)
    }

    /// Fires `message` to the node's server-side handlers only: never delivered to subscribers, never
    /// stored. It is encrypted like a publish.
    @discardableResult
    public func fire(channel: String, message: some Encodable, meta: (any Encodable & Sendable)? = nil) async throws(PubNodeClientError) -> UInt64 {
        var query: [(String, String)] = [("store", "0"), ("norep", "true")]
        if let meta { query.append(("meta", String(decoding: try JSONValue.encode(meta), as: UTF8.self))) }
        return try await send(kind: "publish", channel: channel, payload: try encrypted(message), query: query,
                              post: false, gzip: false)
    }

    /// The JSON text of `message`, encrypted when a crypto module is configured.
    private func encrypted(_ message: some Encodable) throws(PubNodeClientError) -> Data {
        let payload = try JSONValue.encode(message)
        guard let module = configuration.cryptoModule else { return payload }
        return try module.encryptPayload(payload)
    }

    private func send(kind: String, channel: String, payload: Data, query: [(String, String)],
                      post: Bool, gzip: Bool) async throws(PubNodeClientError) -> UInt64 {
        var path = [kind, Percent.encode(try publishKey), Percent.encode(configuration.subscribeKey), "0",
                    Percent.encode(channel), "0"]
        let answer: JSONValue
        if post {
            var headers = ["Content-Type": "application/json"]
            var body = payload
            if gzip, let compressed = Gzip.wrap(payload) {
                body = compressed
                headers["Content-Encoding"] = "gzip"
            }
            answer = try await request(path, method: "POST", query: query, body: body, headers: headers)
        } else {
            path.append(Percent.encode(String(decoding: payload, as: UTF8.self)))
            answer = try await request(path, query: query)
        }
        guard let timetoken = answer[2]?.intValue, timetoken >= 0 else {
            throw .decoding("unexpected publish answer \(answer)")
        }
        return UInt64(timetoken)
    }
}
