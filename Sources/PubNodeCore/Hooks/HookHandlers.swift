/// A synchronous hook: decides whether a message (or fire, or signal) is accepted, changed or
/// refused before anyone sees it. Runs under the hook's timeout; a thrown error or a timeout
/// applies the hook's failure policy.
///
/// In-process handlers run on the node's task pool: keep them short and never block a thread.
public protocol BeforeHookHandler: Sendable {
    /// Decides the fate of `event` (trigger `before-publish` or `before-signal`, no timetoken yet).
    func before(_ event: HookEvent) async throws -> HookDecision
}

/// An asynchronous hook: told about accepted messages and presence changes after the fact,
/// at least once. A thrown error schedules a retry; the publisher is never delayed.
public protocol AfterHookHandler: Sendable {
    /// Handles one delivery; throwing asks for a retry.
    func after(_ delivery: HookDelivery) async throws

    /// Handles several deliveries at once (when the hook's `maxBatch` is above 1); throwing asks
    /// for a retry of all of them. By default, one `after(_:)` call each.
    func after(batch: [HookDelivery]) async throws
}

extension AfterHookHandler {
    /// Delivers each event in turn.
    public func after(batch: [HookDelivery]) async throws {
        for delivery in batch { try await after(delivery) }
    }
}

/// An on-request hook: answers `/v1/blocks/sub-key/{sub}/{path}` calls.
public protocol RequestHookHandler: Sendable {
    /// Answers one request.
    func respond(to request: HookRequest) async throws -> HookResponse
}

/// One attempt at delivering an after event.
public struct HookDelivery: Sendable {
    /// The outbox entry's identifier, stable across retries and restarts (receivers can dedupe on it).
    public var id: UInt64
    /// The hook's name.
    public var hook: String
    /// 1 for the first attempt.
    public var attempt: Int
    /// The event's JSON text, as a webhook receives it.
    public var body: [UInt8]

    /// Creates a delivery.
    public init(id: UInt64, hook: String, attempt: Int, body: [UInt8]) {
        self.id = id
        self.hook = hook
        self.attempt = attempt
        self.body = body
    }

    /// The event, read back from its JSON text.
    public var event: HookEvent? { HookEvent(body: body) }
}

/// A call to an on-request endpoint.
public struct HookRequest: Sendable {
    /// HTTP method name.
    public var method: String
    /// The keyset.
    public var subscribeKey: String
    /// The path below `/v1/blocks/sub-key/{sub}/`.
    public var path: String
    /// Query parameters (decoded).
    public var query: [String: String]
    /// Request headers the handler may need (content type, user agent).
    public var headers: [String: String]
    /// The request body.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, subscribeKey: String, path: String, query: [String: String] = [:],
                headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.subscribeKey = subscribeKey
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// An on-request handler's answer, returned to the caller as it is.
public struct HookResponse: Sendable, Equatable {
    /// HTTP status.
    public var status: Int
    /// Content type of `body`.
    public var contentType: String
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int = 200, contentType: String = "application/json", body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}
