/// What a before handler decided about a message.
public enum HookDecision: Sendable, Equatable {
    /// Accept the message unchanged.
    case pass
    /// Accept it with a replaced message and/or meta (nil keeps the original). Both are JSON text.
    case modify(message: [UInt8]?, meta: [UInt8]?)
    /// Refuse it: the publisher gets `status` (400–599) and `text` as a PubNub-shaped error.
    case abort(status: Int, text: String)

    /// The status used when an abort names none.
    public static let defaultAbortStatus = 403

    /// Reads a webhook's reply body: empty means pass; otherwise a JSON object
    /// `{"action":"pass"}`, `{"action":"modify","message":…,"meta":{…}}` or
    /// `{"action":"abort","status":403,"text":"…"}`.
    public static func parse(reply bytes: [UInt8]) throws(HookFailure) -> HookDecision {
        if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return .pass }
        guard let members = JSONObjectText.members(bytes) else {
            throw .malformedReply("the reply is not a JSON object")
        }
        switch JSONObjectText.string(members["action"]) {
        case "pass"?:
            return .pass
        case "modify"?:
            let message = members["message"].map { Array($0) }
            let meta = members["meta"].map { Array($0) }
            if message == nil, meta == nil { throw .malformedReply("modify needs message and/or meta") }
            if let meta, meta.first != UInt8(ascii: "{") { throw .malformedReply("meta must be a JSON object") }
            return .modify(message: message, meta: meta)
        case "abort"?:
            var status = defaultAbortStatus
            if let raw = members["status"] {
                guard let given = JSONObjectText.integer(raw), (400...599).contains(given) else {
                    throw .malformedReply("abort status must be an integer in 400...599")
                }
                status = given
            }
            let text = JSONObjectText.string(members["text"]) ?? "Refused by hook"
            return .abort(status: status, text: String(text.prefix(512)))
        default:
            throw .malformedReply("action must be pass, modify or abort")
        }
    }
}

/// Why a hook could not be run or delivered.
public enum HookFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The handler did not answer within its timeout.
    case timedOut
    /// The endpoint answered with a status outside 2xx (redirects included).
    case status(Int)
    /// The endpoint's answer could not be read.
    case malformedReply(String)
    /// The answer was larger than the hook accepts.
    case replyTooLarge(limit: Int)
    /// The endpoint could not be reached.
    case unreachable(String)
    /// The URL is not on the allow-list.
    case notAllowed(String)
    /// An in-process handler threw.
    case handler(String)

    /// What callers outside the node are told: the kind of failure, without addresses or
    /// library error text (those go to the log).
    public var summary: String {
        switch self {
        case .timedOut: "timed out"
        case .status(let code): "answered HTTP \(code)"
        case .malformedReply: "malformed reply"
        case .replyTooLarge: "reply too large"
        case .unreachable: "unreachable"
        case .notAllowed: "not allowed"
        case .handler: "handler failed"
        }
    }

    /// A short text for logs and dead letters.
    public var description: String {
        switch self {
        case .timedOut: "timed out"
        case .status(let code): "answered HTTP \(code)"
        case .malformedReply(let why): "malformed reply: \(why)"
        case .replyTooLarge(let limit): "reply over \(limit) bytes"
        case .unreachable(let why): "unreachable: \(why)"
        case .notAllowed(let url): "\(url) is not on the hook allow-list"
        case .handler(let why): "handler failed: \(why)"
        }
    }
}
