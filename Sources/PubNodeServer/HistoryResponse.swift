import NIOCore
import PubNodeCore

/// Renders history answers. Payloads and metadata are copied byte-exact as published.
enum HistoryResponse {
    /// Optional fields of a v3 fetch item.
    struct Fields {
        /// `meta` (an empty string for messages published without one, as PubNub answers).
        var meta: Bool
        /// `uuid`: the publisher.
        var uuid: Bool
        /// `message_type`: `null` for a published message.
        var messageType: Bool
        /// `custom_message_type`, for messages that have one.
        var customMessageType: Bool
        /// `actions` on every item (`/v3/history-with-actions`).
        var actions = false
    }

    /// v2 history: `[[items…],firstTimetoken,lastTimetoken]`, each item the payload, or with
    /// `include_token`/`include_meta` an object `{"message":…,"timetoken":…,"meta":…}`.
    static func v2(_ messages: [StoredMessage], includeToken: Bool, includeMeta: Bool) -> HTTPReply {
        var out: [UInt8] = []
        out.reserveCapacity(messages.reduce(32) { $0 + $1.payload.count + ($1.meta?.count ?? 0) + 48 })
        out.append(contentsOf: "[[".utf8)
        for (index, message) in messages.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard includeToken || includeMeta else {
                out.append(contentsOf: message.payload)
                continue
            }
            out.append(contentsOf: #"{"message":"#.utf8)
            out.append(contentsOf: message.payload)
            if includeToken {
                out.append(contentsOf: #","timetoken":"#.utf8)
                out.append(contentsOf: message.timetoken.description.utf8)
            }
            if includeMeta { appendMeta(message, to: &out) }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "],".utf8)
        out.append(contentsOf: (messages.first?.timetoken.description ?? "0").utf8)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: (messages.last?.timetoken.description ?? "0").utf8)
        out.append(UInt8(ascii: "]"))
        return HTTPReply(body: ByteBuffer(bytes: out))
    }

    /// v3 fetch: `{"status":200,…,"channels":{"ch":[{"message":…,"timetoken":"…",…}]}}`; channels
    /// without messages are left out.
    static func fetch(_ pages: [HistoryPage], fields: Fields, more: [UInt8]? = nil) -> HTTPReply {
        var out: [UInt8] = []
        out.reserveCapacity(pages.reduce(96) { total, page in
            page.messages.reduce(total) { $0 + $1.payload.count + ($1.meta?.count ?? 0) + 128 }
        })
        out.append(contentsOf: #"{"status":200,"error":false,"error_message":"","channels":{"#.utf8)
        for (pageIndex, page) in pages.enumerated() {
            let (channel, messages) = (page.channel, page.messages)
            if pageIndex > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(channel, to: &out)
            out.append(contentsOf: ":[".utf8)
            var actions = page.actions[...]
            for (index, message) in messages.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: #"{"message":"#.utf8)
                out.append(contentsOf: message.payload)
                out.append(contentsOf: #","timetoken":""#.utf8)
                out.append(contentsOf: message.timetoken.description.utf8)
                out.append(UInt8(ascii: "\""))
                if fields.uuid, let publisher = message.publisher {
                    out.append(contentsOf: #","uuid":"#.utf8)
                    JSONText.appendString(publisher, to: &out)
                }
                if fields.messageType {
                    out.append(contentsOf: #","message_type":"#.utf8)
                    out.append(contentsOf: (message.messageType == 0 ? "null" : String(message.messageType)).utf8)
                }
                if fields.customMessageType, let type = message.customMessageType {
                    out.append(contentsOf: #","custom_message_type":"#.utf8)
                    JSONText.appendString(type, to: &out)
                }
                if fields.meta { appendMeta(message, to: &out) }
                if fields.actions {
                    while let first = actions.first, first.messageTimetoken < message.timetoken { actions.removeFirst() }
                    let count = actions.prefix { $0.messageTimetoken == message.timetoken }.count
                    appendActions(actions.prefix(count), to: &out)
                    actions.removeFirst(count)
                }
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        if let more {
            out.append(contentsOf: #","more":"#.utf8)
            out.append(contentsOf: more)
        }
        out.append(UInt8(ascii: "}"))
        return HTTPReply(body: ByteBuffer(bytes: out))
    }

    /// Message counts: `{"status":200,…,"channels":{"ch":N},"more":{}}`.
    static func counts(_ counts: [(channel: String, count: Int)]) -> HTTPReply {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"status":200,"error":false,"error_message":"","channels":{"#.utf8)
        for (index, (channel, count)) in counts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(channel, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: String(count).utf8)
        }
        out.append(contentsOf: #"},"more":{}}"#.utf8)
        return HTTPReply(body: ByteBuffer(bytes: out))
    }

    /// `"actions":{"<type>":{"<value>":[{"uuid":…,"actionTimetoken":"…"}]}}`, types and values in
    /// the order of their first action.
    private static func appendActions(_ actions: ArraySlice<MessageAction>, to out: inout [UInt8]) {
        var types: [String] = []
        var values: [String: [String]] = [:]
        var entries: [String: [String: [MessageAction]]] = [:]
        for action in actions {
            if entries[action.type] == nil { types.append(action.type) }
            if entries[action.type, default: [:]][action.value] == nil { values[action.type, default: []].append(action.value) }
            entries[action.type, default: [:]][action.value, default: []].append(action)
        }
        out.append(contentsOf: #","actions":{"#.utf8)
        for (typeIndex, type) in types.enumerated() {
            if typeIndex > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(type, to: &out)
            out.append(contentsOf: ":{".utf8)
            for (valueIndex, value) in (values[type] ?? []).enumerated() {
                if valueIndex > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(value, to: &out)
                out.append(contentsOf: ":[".utf8)
                for (index, action) in (entries[type]?[value] ?? []).enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: #"{"uuid":"#.utf8)
                    JSONText.appendString(action.uuid, to: &out)
                    out.append(contentsOf: #","actionTimetoken":""#.utf8)
                    out.append(contentsOf: action.actionTimetoken.description.utf8)
                    out.append(contentsOf: #""}"#.utf8)
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func appendMeta(_ message: StoredMessage, to out: inout [UInt8]) {
        out.append(contentsOf: #","meta":"#.utf8)
        if let meta = message.meta { out.append(contentsOf: meta) } else { out.append(contentsOf: #""""#.utf8) }
    }
}
