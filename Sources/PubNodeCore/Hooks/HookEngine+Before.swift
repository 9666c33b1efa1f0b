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
    public func runBefore(_ hooks: [HookBinding], event: HookEvent) async -> BeforeOutcome {
        var event = event
        for hook in hooks {
            guard case .before(let handler) = hook.handler else { continue }
            let current = event
            do {
                let decision = try await Deadline.run(hook.timeout) { try await handler.before(current) }
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
                    return .abort(status: 503, text: "Hook \(hook.name) unavailable: \(failure)")
                }
            }
        }
        return .proceed(message: event.message ?? [], meta: event.meta)
    }

    /// Answers an on-request call with `hook`, mapping failures to 502 (unreachable or bad
    /// answer) and 504 (timeout).
    public func respond(_ hook: HookBinding, to request: HookRequest) async -> HookResponse {
        guard case .request(let handler) = hook.handler else {
            return HookResponse(status: 500, body: Array(#"{"status":500,"error":true,"message":"not an on-request hook"}"#.utf8))
        }
        do {
            return try await Deadline.run(hook.timeout) { try await handler.respond(to: request) }
        } catch {
            let failure = (error as? HookFailure) ?? .handler(String(describing: error))
            logger.warning("on-request hook failed", metadata: ["hook": "\(hook.name)", "path": "\(request.path)",
                                                                "error": "\(failure)"])
            let status = failure == .timedOut ? 504 : 502
            var body: [UInt8] = []
            body.append(contentsOf: #"{"status":\#(status),"error":true,"service":"Blocks","message":"#.utf8)
            JSONText.appendString("Hook \(hook.name) failed: \(failure)", to: &body)
            body.append(UInt8(ascii: "}"))
            return HookResponse(status: status, body: body)
        }
    }
}
