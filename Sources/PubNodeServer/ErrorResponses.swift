import NIOCore
import NIOHTTP1
import PubNodeCore

/// The one place where refusals become PubNub-shaped HTTP responses.
///
/// Publish and signal errors use PubNub's array form `[0,"<text>","<timetoken>"]`; every other
/// endpoint uses the object form `{"status":…,"error":true,"message":…,"service":…}`.
enum ErrorResponses {
    /// Which response family an endpoint belongs to.
    enum Shape {
        /// `[0,"text","timetoken"]`.
        case publish
        /// `{"status":…,"error":true,…}` with the given service name.
        case object(service: String)
        /// History's form: `{"status":…,"error":true,"error_message":…,"channels":{}}`.
        case history
        /// App Context's form: `{"status":…,"error":{"message":…,"source":"objects"}}`.
        case objects
    }

    /// The status and text for a domain error.
    static func describe(_ error: PubNodeError) -> (HTTPResponseStatus, String) {
        switch error {
        case .invalidKey: return (.badRequest, "Invalid Key")
        case .invalidChannel(let name, let why): return (.badRequest, "Invalid channel name '\(clip(name))': \(text(why))")
        case .invalidGroup(let name, let why): return (.badRequest, "Invalid channel group name '\(clip(name))': \(text(why))")
        case .publishToWildcard(let name): return (.badRequest, "Cannot publish to wildcard channel '\(clip(name))'")
        case .invalidJSON: return (.badRequest, "Invalid JSON")
        case .invalidMeta: return (.badRequest, "Invalid meta parameter: not JSON")
        case .messageTooLarge: return (.badRequest, "Message Too Large")
        case .signalTooLarge: return (.badRequest, "Signal size too large")
        case .tooManyChannels(let limit): return (.badRequest, "Too many channels in subscribe (limit \(limit))")
        case .tooManyGroups(let limit): return (.badRequest, "Too many channel groups in subscribe (limit \(limit))")
        case .groupFull(let limit): return (.badRequest, "Maximum channels per group exceeded (limit \(limit))")
        case .keysetGroupsFull(let limit): return (.badRequest, "Maximum channel groups per keyset reached (limit \(limit))")
        case .tooManyStates(let limit): return (.badRequest, "Presence state is held on too many channels (limit \(limit))")
        case .invalidParameter(let what): return (.badRequest, "Invalid Arguments: \(what)")
        case .invalidState(let why): return (.badRequest, "Invalid state: \(why)")
        case .stateTooLarge(let limit): return (.badRequest, "State too large (limit \(limit) bytes)")
        case .forbidden(let why): return (.forbidden, "Forbidden: \(why)")
        case .storageDisabled: return (.forbidden, "Storage is not enabled for this subscribe key")
        case .storageFailed(let why): return (.internalServerError, "Storage error: \(why)")
        case .unavailable(let why): return (.serviceUnavailable, "Service Unavailable: \(why)")
        case .refusedByHook(let status, let text): return (HTTPResponseStatus(statusCode: status), text)
        case .adminDisabled: return (.forbidden, "Admin endpoints are disabled: configure adminToken")
        case .unauthorized(let why): return (.unauthorized, why)
        case .notFound(let what): return (.notFound, what)
        case .accessDenied: return (.forbidden, "Forbidden")
        case .accessRefused(let why): return (.forbidden, why)
        case .accessInvalid(let message, _, _, _, _): return (.badRequest, message)
        case .tooManyRequests: return (.tooManyRequests, "Too many requests.")
        case .objectNotFound: return (.notFound, "Requested object was not found.")
        case .objectChanged: return (.preconditionFailed, "Object already changed by another request since last retrieval.")
        case .conflict(let text): return (.conflict, text)
        case .rejected(let text): return (.badRequest, text)
        case .invalidFilter(let why):
            return (HTTPResponseStatus(statusCode: 481, reasonPhrase: "Malformed Filter Expression"), "Invalid filter expression: \(why)")
        }
    }

    /// The reply for `error` in the endpoint's shape; `timetoken` fills the publish form.
    static func reply(_ error: PubNodeError, shape: Shape, timetoken: Timetoken) -> HTTPReply {
        if let reply = accessReply(error) { return reply }
        let (status, message) = describe(error)
        switch shape {
        case .publish:
            return .json("[0,\(JSONText.string(message)),\"\(timetoken)\"]", status: status)
        case .object(let service):
            let service = error == .invalidKey ? "Access Manager" : service
            return object(status: status, message: message, service: service)
        case .history:
            return .json(#"{"status":\#(status.code),"error":true,"error_message":\#(JSONText.string(message)),"channels":{}}"#,
                         status: status)
        case .objects:
            return .json(#"{"status":\#(status.code),"error":{"message":\#(JSONText.string(message)),"source":"objects"}}"#,
                         status: status)
        }
    }

    /// Access Manager's and the rate limiter's refusals keep PubNub's own bodies whatever the
    /// endpoint (a refused publish is answered with the object, not the array, as on PubNub).
    static func accessReply(_ error: PubNodeError) -> HTTPReply? {
        switch error {
        case .accessDenied(let channels, let groups, let uuids):
            let names = { (list: [String]) in "[" + list.map(JSONText.string).joined(separator: ",") + "]" }
            var payload = [#""channels":\#(names(channels))"#]
            if !groups.isEmpty { payload.append(#""channel-groups":\#(names(groups.map { ":" + $0 }))"#) }
            if !uuids.isEmpty { payload.append(#""uuids":\#(names(uuids))"#) }
            return .json(#"{"message":"Forbidden","payload":{\#(payload.joined(separator: ","))},"error":true,"service":"Access Manager","status":403}"#,
                         status: .forbidden)
        case .accessRefused(let message):
            return .json(#"{"message":\#(JSONText.string(message)),"error":true,"service":"Access Manager","status":403}"#,
                         status: .forbidden)
        case .accessInvalid(let message, let source, let detail, let location, let locationType):
            let details = #"[{"message":\#(JSONText.string(detail)),"location":\#(JSONText.string(location)),"locationType":\#(JSONText.string(locationType))}]"#
            return .json(#"{"error":{"message":\#(JSONText.string(message)),"source":\#(JSONText.string(source)),"details":\#(details)},"service":"Access Manager","status":400}"#,
                         status: .badRequest)
        case .tooManyRequests(let retryAfter):
            var reply = HTTPReply.json(#"{"status":429,"error":true,"message":"Too many requests.","service":"Rate Limiter"}"#,
                                       status: .tooManyRequests)
            reply.retryAfter = max(1, retryAfter)
            return reply
        default:
            return nil
        }
    }

    /// An object-form error for transport-level refusals (unknown route, oversize body…).
    static func object(status: HTTPResponseStatus, message: String, service: String = "Balancer") -> HTTPReply {
        .json(#"{"status":\#(status.code),"error":true,"message":\#(JSONText.string(message)),"service":"\#(service)"}"#,
              status: status)
    }

    private static func text(_ violation: NameRules.Violation) -> String {
        switch violation {
        case .empty: return "empty"
        case .tooLong: return "longer than \(NameRules.maxLength) bytes"
        case .forbiddenCharacter: return "contains a forbidden character"
        case .badWildcard: return "malformed wildcard (use a.* or a.b.*)"
        case .reservedForPresence: return "names containing -pnpres are reserved for presence events"
        }
    }

    private static func clip(_ name: String) -> String {
        name.count > 64 ? String(name.prefix(64)) + "…" : name
    }
}
