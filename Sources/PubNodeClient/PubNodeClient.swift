import Foundation

/// The PubNode client: publish, subscribe, presence, channel groups and history over PubNub's
/// HTTP protocol. Safe to share and to call from any task.
public final class PubNodeClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: PubNodeConfiguration
    /// The transport requests go through.
    public let transport: any PubNodeTransport
    let subscription: SubscriptionLoop
    let hub: EventHub
    let access: AccessState

    /// A client for `configuration`; `transport` defaults to `URLSessionTransport`, `sleeper` (the
    /// clock of retries, heartbeats and the token-expiry warning) to real time, `random` (jitter) to
    /// the system generator, `wallClock` (Unix seconds: signature timestamps, token expiry) to the
    /// system clock.
    public init(configuration: PubNodeConfiguration, transport: any PubNodeTransport = URLSessionTransport(),
                sleeper: any PubNodeSleeper = TaskSleeper(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.configuration = configuration
        self.transport = transport
        let hub = EventHub()
        self.hub = hub
        let access = AccessState(token: configuration.authToken, wallClock: wallClock, sleeper: sleeper, hub: hub,
                                 warning: configuration.tokenExpiryWarning)
        self.access = access
        self.subscription = SubscriptionLoop(configuration: configuration, transport: transport, hub: hub,
                                             sleeper: sleeper, random: random, access: access)
        access.watchExpiry()
    }

    deinit {
        access.stopWatching()
    }

    /// A request builder carrying the current token and the wall clock.
    var builder: RequestBuilder {
        RequestBuilder(configuration: configuration, token: access.token, wallClock: access.wallClock)
    }

    /// Sends a request and returns its JSON answer, throwing `.server` for a non-2xx status.
    func request(_ path: [String], method: String = "GET", query: [(String, String)] = [],
                 body: Data? = nil, headers: [String: String] = [:],
                 timeout: Double? = nil) async throws(PubNodeClientError) -> JSONValue {
        let request = try builder.request(path, method: method, query: query, body: body, headers: headers, timeout: timeout)
        return try await PubNodeClient.send(request, through: transport)
    }

    /// Sends `request` through `transport`, mapping failures to `PubNodeClientError`.
    static func send(_ request: TransportRequest, through transport: any PubNodeTransport) async throws(PubNodeClientError) -> JSONValue {
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw .transport(String(describing: error))
        }
        let json = try? JSONValue(jsonData: response.body)
        guard (200..<300).contains(response.status) else {
            throw failure(response, json: json)
        }
        guard let json else { throw .decoding("answer is not JSON: \(String(decoding: response.body, as: UTF8.self))") }
        return json
    }

    /// The error of a non-2xx answer: `.accessDenied` for 403, `.rateLimited` for 429, else `.server`.
    static func failure(_ response: TransportResponse, json: JSONValue?) -> PubNodeClientError {
        let message = errorMessage(json, body: response.body)
        switch response.status {
        case 403:
            let payload = json?["payload"]
            let groups = payload?["channel-groups"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return .accessDenied(AccessDenial(
                message: message,
                channels: payload?["channels"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                channelGroups: groups.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }))
        case 429:
            let retryAfter = response.headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            return .rateLimited(retryAfter: retryAfter, message: message)
        default:
            return .server(status: response.status, message: message)
        }
    }

    /// The message of an error answer in PubNub's array or object form.
    static func errorMessage(_ json: JSONValue?, body: Data) -> String {
        if let text = json?[1]?.stringValue { return text }
        if let text = json?["message"]?.stringValue, !text.isEmpty { return text }
        if let text = json?["error_message"]?.stringValue, !text.isEmpty { return text }
        if let text = json?["error"]?["message"]?.stringValue, !text.isEmpty { return text }
        return String(decoding: body, as: UTF8.self)
    }

    /// The publish key, or `.invalidArgument` when none is configured.
    var publishKey: String {
        get throws(PubNodeClientError) {
            guard let key = configuration.publishKey else { throw .invalidArgument("no publish key configured") }
            return key
        }
    }
}

/// Percent-encoding of path segments and query values.
enum Percent {
    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")

    /// Encodes every byte except `A–Z a–z 0–9 - _ . ~`.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// Names encoded one by one and joined with raw commas (`,` alone for an empty list).
    static func list(_ names: [String]) -> String {
        names.isEmpty ? "," : names.map(encode).joined(separator: ",")
    }
}
