import Logging

extension HookEngine {
    /// What the before hooks decided about a message.
    public enum BeforeOutcome: Sendable, Equatable {
        /// Accept it, with the message and meta as the hooks left them.
        case proceed(message: [UInt8], meta: [UInt8]?)
        /// Refuse it with this status and text.
        case abort(status: Int, text: String)
    }

    /// Runs `hooks` in order on `event`: each sees the message as the previous one left it; the
    /// first abort ends the chain. A hook that fails or times out is logged and handled by its
    /// policy: fail-open skips it, fail-closed refuses the message with 503.
    ///
    /// `executor` is where the handlers run (the publisher's event loop, so an in-process handler
    /// costs no thread hop); nil means Swift's global pool.
    public func runBefore(_ hooks: [HookBinding], event: HookEvent, executor: (any TaskExecutor)? = nil) async -> BeforeOutcome {
        var event = event
        for hook in hooks {
            guard case .before(let handler) = hook.handler else { continue }
            let current = event
            do {
                let decision = hook.enforcesTimeout
                    ? try await handler.before(current)
                    : try await Deadline.run(hook.timeout, on: nodeClock, executor: executor) { try await handler.before(current) }
                switch decision {
                case .pass:
                    continue
                case .modify(let message, let meta):
                    if let message { event.message = message }
                    if let meta { event.meta = meta }
                case .abort(let status, let text):
                    return .abort(status: (400...599).contains(status) ? status : HookDecision.defaultAbortStatus, text: text)
                }
            } catch {
                let failure = (error as? HookFailure) ?? .handler(String(describing: error))
                switch hook.policy {
                case .failOpen:
                    logger.warning("before hook failed; message accepted (fail-open)", metadata: [
                        "hook": "\(hook.name)", "channel": "\(event.channel)", "error": "\(failure)"])
                case .failClosed:
                    logger.warning("before hook failed; message refused (fail-closed)", metadata: [
                        "hook": "\(hook.name)", "channel": "\(event.channel)", "error": "\(failure)"])
                    return .abort(status: 503, text: "Hook \(hook.name) unavailable: \(failure.summary)")
                }
            }
        }
        return .proceed(message: event.message ?? [], meta: event.meta)
    }

    /// Answers an on-request call with `hook`, mapping failures to 502 (unreachable or bad
    /// answer), 504 (timeout) and 503 (too many calls in progress).
    public func respond(_ hook: HookBinding, to request: HookRequest, executor: (any TaskExecutor)? = nil) async -> HookResponse {
        guard case .request(let handler) = hook.handler, let gauge = requestsInFlight[hook.name] else {
            return Self.failure(500, "Hook \(hook.name) is not an on-request hook")
        }
        guard gauge.value.add(1, ordering: .relaxed).newValue <= hook.maxConcurrentRequests else {
            gauge.value.subtract(1, ordering: .relaxed)
            return Self.failure(503, "Hook \(hook.name) is busy; try again")
        }
        defer { gauge.value.subtract(1, ordering: .relaxed) }
        do {
            var response = try await Deadline.run(hook.timeout, on: nodeClock, executor: executor) { try await handler.respond(to: request) }
            guard (200...599).contains(response.status) else {
                logger.warning("on-request hook answered an invalid status", metadata: [
                    "hook": "\(hook.name)", "status": "\(response.status)"])
                return Self.failure(502, "Hook \(hook.name) answered an invalid status")
            }
            if response.status == 204 || response.status == 304 { response.body = [] }
            return response
        } catch {
            let failure = (error as? HookFailure) ?? .handler(String(describing: error))
            logger.warning("on-request hook failed", metadata: ["hook": "\(hook.name)", "path": "\(request.path)",
                                                                "error": "\(failure)"])
            return Self.failure(failure == .timedOut ? 504 : 502, "Hook \(hook.name) failed: \(failure.summary)")
        }
    }

    private static func failure(_ status: Int, _ message: String) -> HookResponse {
        var body: [UInt8] = []
        body.append(contentsOf: #"{"status":\#(status),"error":true,"service":"Blocks","message":"#.utf8)
        JSONText.appendString(message, to: &body)
        body.append(UInt8(ascii: "}"))
        return HookResponse(status: status, body: body)
    }
}
