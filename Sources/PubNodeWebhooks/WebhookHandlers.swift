import PubNodeCore

/// A hook answered by a webhook: `spec.url` receives the event as a signed JSON POST through
/// `client`. The same type serves every trigger; the binding decides which entry point runs.
public struct WebhookHandler: BeforeHookHandler, AfterHookHandler, RequestHookHandler {
    let client: WebhookClient
    let spec: HookSpec

    /// Creates the handler for `spec`.
    public init(client: WebhookClient, spec: HookSpec) {
        self.client = client
        self.spec = spec
    }

    /// Before hooks: POSTs the event and reads the decision (an empty 2xx is a pass). Any other
    /// status is a failure, handled by the hook's policy.
    public func before(_ event: HookEvent) async throws -> HookDecision {
        let reply = try await post(event.body(), headers: [])
        guard (200..<300).contains(reply.status) else { throw HookFailure.status(reply.status) }
        return try HookDecision.parse(reply: reply.body)
    }

    /// After hooks: POSTs one delivery; a 2xx answer delivers it, anything else asks for a retry.
    public func after(_ delivery: HookDelivery) async throws {
        try await deliver(delivery.body, headers: [("X-PubNode-Delivery", String(delivery.id)),
                                                   ("X-PubNode-Attempt", String(delivery.attempt))])
    }

    /// After hooks with `maxBatch` above 1: POSTs several deliveries in one request,
    /// `{"batch":[{"id":"…","attempt":1,"event":{…}},…]}`.
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
        try await deliver(body, headers: [("X-PubNode-Batch", String(batch.count))])
    }

    /// On-request hooks: forwards the call as a JSON event and returns the webhook's answer
    /// (status, content type, body) as it is; a redirect or an impossible status is a failure.
    public func respond(to request: HookRequest) async throws -> HookResponse {
        let reply = try await post(request.eventBody(), headers: [])
        guard (200...599).contains(reply.status), !(300..<400).contains(reply.status) else {
            throw HookFailure.status(reply.status)
        }
        return HookResponse(status: reply.status, contentType: reply.contentType ?? "application/json", body: reply.body)
    }

    private func deliver(_ body: [UInt8], headers: [(String, String)]) async throws {
        let reply = try await post(body, headers: headers, readBody: false)
        guard (200..<300).contains(reply.status) else { throw HookFailure.status(reply.status) }
    }

    private func post(_ body: [UInt8], headers: [(String, String)], readBody: Bool = true) async throws -> WebhookClient.Reply {
        try await client.post(body, to: spec.url, secret: spec.secret,
                              headers: [("X-PubNode-Hook", spec.name), ("X-PubNode-Event", spec.trigger.rawValue)] + headers,
                              timeout: .milliseconds(spec.timeoutMilliseconds), maxReplyBytes: spec.maxReplyBytes,
                              readBody: readBody)
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
            let webhook = WebhookHandler(client: client, spec: spec)
            let handler: HookBinding.Handler
            switch spec.trigger {
            case .beforePublish, .beforeSignal: handler = .before(webhook)
            case .afterPublish, .afterSignal, .afterPresence: handler = .after(webhook)
            case .onRequest: handler = .request(webhook)
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
