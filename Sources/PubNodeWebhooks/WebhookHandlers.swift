import PubNodeCore

/// A before hook that asks a webhook: the event is POSTed and the reply read as a `HookDecision`
/// (empty 2xx = pass). Any other status is a failure, handled by the hook's policy.
public struct WebhookBeforeHandler: BeforeHookHandler {
    let client: WebhookClient
    let spec: HookSpec

    /// Creates the handler for `spec`.
    public init(client: WebhookClient, spec: HookSpec) {
        self.client = client
        self.spec = spec
    }

    /// POSTs the event and reads the decision.
    public func before(_ event: HookEvent) async throws -> HookDecision {
        let reply = try await client.post(event.body(), to: spec.url, secret: spec.secret,
                                          headers: WebhookHeaders.of(spec, event: event.trigger),
                                          timeout: .milliseconds(spec.timeoutMilliseconds), maxReplyBytes: spec.maxReplyBytes)
        guard (200..<300).contains(reply.status) else { throw HookFailure.status(reply.status) }
        return try HookDecision.parse(reply: reply.body)
    }
}

/// An after hook that POSTs each event; a 2xx answer is a delivery, anything else a retry.
public struct WebhookAfterHandler: AfterHookHandler {
    let client: WebhookClient
    let spec: HookSpec

    /// Creates the handler for `spec`.
    public init(client: WebhookClient, spec: HookSpec) {
        self.client = client
        self.spec = spec
    }

    /// POSTs one delivery.
    public func after(_ delivery: HookDelivery) async throws {
        var headers = WebhookHeaders.of(spec, event: spec.trigger)
        headers.append(("X-PubNode-Delivery", String(delivery.id)))
        headers.append(("X-PubNode-Attempt", String(delivery.attempt)))
        let reply = try await client.post(delivery.body, to: spec.url, secret: spec.secret, headers: headers,
                                          timeout: .milliseconds(spec.timeoutMilliseconds), maxReplyBytes: spec.maxReplyBytes,
                                          readBody: false)
        guard (200..<300).contains(reply.status) else { throw HookFailure.status(reply.status) }
    }

    /// POSTs several deliveries in one request: `{"batch":[{"id":"…","attempt":1,"event":{…}},…]}`.
    public func after(batch: [HookDelivery]) async throws {
        guard batch.count > 1 else {
            if let only = batch.first { try await after(only) }
            return
        }
        var body: [UInt8] = Array(#"{"batch":["#.utf8)
        body.reserveCapacity(16 + batch.reduce(0) { $0 + $1.body.count + 40 })
        for (index, delivery) in batch.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: #"{"id":"\#(delivery.id)","attempt":\#(delivery.attempt),"event":"#.utf8)
            body.append(contentsOf: delivery.body)
            body.append(UInt8(ascii: "}"))
        }
        body.append(contentsOf: "]}".utf8)
        var headers = WebhookHeaders.of(spec, event: spec.trigger)
        headers.append(("X-PubNode-Batch", String(batch.count)))
        let reply = try await client.post(body, to: spec.url, secret: spec.secret, headers: headers,
                                          timeout: .milliseconds(spec.timeoutMilliseconds), maxReplyBytes: spec.maxReplyBytes,
                                          readBody: false)
        guard (200..<300).contains(reply.status) else { throw HookFailure.status(reply.status) }
    }
}

/// An on-request hook: the call is POSTed as a JSON event and the webhook's answer (status,
/// content type, body) is returned to the caller as it is.
public struct WebhookRequestHandler: RequestHookHandler {
    let client: WebhookClient
    let spec: HookSpec

    /// Creates the handler for `spec`.
    public init(client: WebhookClient, spec: HookSpec) {
        self.client = client
        self.spec = spec
    }

    /// Forwards the call.
    public func respond(to request: HookRequest) async throws -> HookResponse {
        let reply = try await client.post(request.eventBody(), to: spec.url, secret: spec.secret,
                                          headers: WebhookHeaders.of(spec, event: .onRequest),
                                          timeout: .milliseconds(spec.timeoutMilliseconds), maxReplyBytes: spec.maxReplyBytes)
        guard (200...599).contains(reply.status), !(300..<400).contains(reply.status) else {
            throw HookFailure.status(reply.status)
        }
        return HookResponse(status: reply.status, contentType: reply.contentType ?? "application/json", body: reply.body)
    }
}

/// The headers every webhook call carries besides the signature.
enum WebhookHeaders {
    static func of(_ spec: HookSpec, event: HookTrigger) -> [(String, String)] {
        [("X-PubNode-Hook", spec.name), ("X-PubNode-Event", event.rawValue)]
    }
}

extension HookRequest {
    /// The JSON event an on-request webhook receives: `{"event":"on-request","method":"POST",
    /// "subscribeKey":…,"path":…,"query":{…},"headers":{…},"body":"…"}` (body as text).
    public func eventBody() -> [UInt8] {
        var out: [UInt8] = Array(#"{"event":"on-request","method":"#.utf8)
        JSONText.appendString(method, to: &out)
        out.append(contentsOf: #","subscribeKey":"#.utf8)
        JSONText.appendString(subscribeKey, to: &out)
        out.append(contentsOf: #","path":"#.utf8)
        JSONText.appendString(path, to: &out)
        for (name, map) in [("query", query), ("headers", headers)] {
            out.append(contentsOf: ",\"\(name)\":{".utf8)
            for (index, key) in map.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONText.appendString(map[key]!, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #","body":"#.utf8)
        JSONText.appendString(String(decoding: body, as: UTF8.self), to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// The configured webhooks: their bindings, and one client per hook so that a slow endpoint
/// only ever ties up its own hook's connections.
public struct WebhookHooks: Sendable {
    /// One binding per spec, in order.
    public let bindings: [HookBinding]
    private let clients: [WebhookClient]

    /// Builds a binding per spec. Every URL is checked against `allowList` first, so a forbidden
    /// URL stops start-up instead of failing later.
    public static func make(_ specs: [HookSpec], allowList: HostAllowList = HostAllowList()) throws(HookConfigurationError)
        -> WebhookHooks {
        var bindings: [HookBinding] = []
        var clients: [WebhookClient] = []
        for spec in specs {
            let connections: Int
            switch spec.trigger {
            case .afterPublish, .afterSignal, .afterPresence: connections = spec.delivery.concurrency
            case .onRequest: connections = spec.maxConcurrentRequests
            case .beforePublish, .beforeSignal: connections = 64
            }
            let client = WebhookClient(allowList: allowList, connectionsPerHost: connections)
            clients.append(client)
            do { try client.check(spec.url) } catch {
                let opened = clients
                Task { for client in opened { await client.shutdown() } }
                throw HookConfigurationError("hook \(spec.name): \(error)")
            }
            let handler: HookBinding.Handler
            switch spec.trigger {
            case .beforePublish, .beforeSignal: handler = .before(WebhookBeforeHandler(client: client, spec: spec))
            case .afterPublish, .afterSignal, .afterPresence: handler = .after(WebhookAfterHandler(client: client, spec: spec))
            case .onRequest: handler = .request(WebhookRequestHandler(client: client, spec: spec))
            }
            var binding = HookBinding(name: spec.name, trigger: spec.trigger, subscribeKey: spec.subscribeKey,
                                      channels: spec.channels, handler: handler, target: spec.url)
            binding.timeout = .milliseconds(spec.timeoutMilliseconds)
            binding.policy = spec.policy
            binding.delivery = spec.delivery
            binding.maxConcurrentRequests = spec.maxConcurrentRequests
            // The client's deadline applies the timeout; no extra timer per call.
            binding.enforcesTimeout = true
            bindings.append(binding)
        }
        return WebhookHooks(bindings: bindings, clients: clients)
    }

    /// Closes every client's connections.
    public func shutdown() async {
        for client in clients { await client.shutdown() }
    }
}
