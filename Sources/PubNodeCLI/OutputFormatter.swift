import Foundation
import PubNodeClient

/// Renders what the node sends back as text lines for people or JSON objects for programs.
public final class OutputFormatter {
    /// The colours used in text lines.
    public let style: Style
    private let localTime: DateFormatter
    private let utcTime: DateFormatter

    /// A formatter with `style`, showing text times in `timeZone`.
    public init(style: Style, timeZone: TimeZone = .current) {
        self.style = style
        localTime = DateFormatter()
        localTime.locale = Locale(identifier: "en_US_POSIX")
        localTime.timeZone = timeZone
        localTime.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        utcTime = DateFormatter()
        utcTime.locale = Locale(identifier: "en_US_POSIX")
        utcTime.timeZone = TimeZone(identifier: "UTC")
        utcTime.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
    }

    /// The date of a timetoken (100 ns units since 1970).
    public static func date(of timetoken: UInt64) -> Date {
        Date(timeIntervalSince1970: Double(timetoken / 10_000) / 1000)
    }

    /// A timetoken's time in UTC, ISO 8601 with milliseconds (`2026-01-02T03:04:05.678Z`).
    public func isoTime(_ timetoken: UInt64) -> String { utcTime.string(from: Self.date(of: timetoken)) }

    /// A timetoken's local time (`2026-01-02 03:04:05.678`).
    public func localTime(_ timetoken: UInt64) -> String { localTime.string(from: Self.date(of: timetoken)) }

    /// `value`, or no value at all for JSON `null` (which `meta` is when a message has none).
    static func present(_ value: JSONValue?) -> JSONValue? {
        guard let value, value != .null else { return Optional<JSONValue>.none }
        return value
    }

    /// A payload for people: strings as they are (control characters escaped, so a payload can
    /// neither drive the terminal nor break the one-line-per-message output), anything else as
    /// compact JSON.
    public func text(of payload: JSONValue) -> String {
        guard case .string(let text) = payload else { return payload.jsonString }
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                escaped += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    // MARK: Messages and signals

    /// A received message or signal as one JSON object.
    public func json(_ message: ReceivedMessage, signal: Bool = false) -> String {
        var object: [String: JSONValue] = [
            "type": .string(signal ? "signal" : "message"), "channel": .string(message.channel),
            "timetoken": .string(String(message.timetoken)), "time": .string(isoTime(message.timetoken)),
            "message": message.payload,
        ]
        object["publisher"] = message.publisher.map(JSONValue.string)
        object["subscription"] = message.subscription.map(JSONValue.string)
        object["meta"] = Self.present(message.meta)
        object["customMessageType"] = message.customMessageType.map(JSONValue.string)
        object["decryptionError"] = message.decryptionError.map { .string($0.message) }
        return JSONValue.object(object).jsonString
    }

    /// A received message or signal as one text line: time, channel, publisher and payload.
    public func text(_ message: ReceivedMessage, signal: Bool = false) -> String {
        var channel = style.cyan(message.channel)
        if let subscription = message.subscription { channel += style.dim(" (\(subscription))") }
        var parts = [style.dim(localTime(message.timetoken)), channel, style.green(message.publisher ?? "-")]
        if signal { parts.append(style.yellow("signal")) }
        parts.append(text(of: message.payload))
        if let meta = Self.present(message.meta) { parts.append(style.dim("meta=" + meta.jsonString)) }
        return parts.joined(separator: "  ")
    }

    // MARK: Presence

    /// A presence event as one JSON object.
    public func json(_ change: PresenceChange) -> String {
        var object: [String: JSONValue] = [
            "type": "presence", "channel": .string(change.channel), "action": .string(change.action),
            "occupancy": .int(Int64(change.occupancy)), "timetoken": .string(String(change.timetoken)),
            "time": .string(isoTime(change.timetoken)),
        ]
        object["uuid"] = change.uuid.map(JSONValue.string)
        object["subscription"] = change.subscription.map(JSONValue.string)
        object["state"] = change.state
        for (key, list) in [("join", change.join), ("leave", change.leave), ("timeout", change.timeout)] where !list.isEmpty {
            object[key] = .array(list.map(JSONValue.string))
        }
        return JSONValue.object(object).jsonString
    }

    /// A presence event as one text line: time, channel, action, who and the occupancy.
    public func text(_ change: PresenceChange) -> String {
        let action: String
        switch change.action {
        case "join": action = style.green("join")
        case "leave", "timeout": action = style.red(change.action)
        default: action = style.yellow(change.action)
        }
        var parts = [style.dim(localTime(change.timetoken)), style.cyan(change.channel), action]
        if let uuid = change.uuid { parts.append(uuid) }
        parts.append(style.dim("occupancy \(change.occupancy)"))
        for (key, list) in [("join", change.join), ("leave", change.leave), ("timeout", change.timeout)] where !list.isEmpty {
            parts.append("\(key): " + list.joined(separator: ","))
        }
        if let state = change.state { parts.append("state=" + state.jsonString) }
        return parts.joined(separator: "  ")
    }

    // MARK: History

    /// A stored message of `channel` as one JSON object.
    public func json(_ message: HistoryMessage, channel: String) -> String {
        var object: [String: JSONValue] = [
            "channel": .string(channel), "timetoken": .string(String(message.timetoken)),
            "time": .string(isoTime(message.timetoken)), "message": message.payload,
        ]
        object["publisher"] = message.publisher.map(JSONValue.string)
        object["meta"] = Self.present(message.meta)
        object["customMessageType"] = message.customMessageType.map(JSONValue.string)
        object["decryptionError"] = message.decryptionError.map { .string($0.message) }
        return JSONValue.object(object).jsonString
    }

    /// A stored message of `channel` as one text line: timetoken, time, channel, publisher and payload.
    public func text(_ message: HistoryMessage, channel: String) -> String {
        var parts = [style.dim(String(message.timetoken)), style.dim(localTime(message.timetoken)), style.cyan(channel),
                     style.green(message.publisher ?? "-"), text(of: message.payload)]
        if let meta = Self.present(message.meta) { parts.append(style.dim("meta=" + meta.jsonString)) }
        return parts.joined(separator: "  ")
    }
}
