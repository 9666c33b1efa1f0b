import Foundation
import PubNodeCore

extension NodeConfiguration {
    /// Applies a JSON config file: top-level settings by name, `keysets` as an array of
    /// `{"publishKey":…,"subscribeKey":…}` (optionally with presence overrides such as
    /// `"presenceTimeoutSeconds":60`), and a `limits` object. Unknown names are errors.
    public mutating func apply(fileAt path: String) throws(ConfigurationError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConfigurationError("cannot read config file \(path): \(error.localizedDescription)")
        }
        try apply(json: data, source: path)
    }

    /// Applies JSON config text (see `apply(fileAt:)`).
    public mutating func apply(json data: Data, source: String = "config") throws(ConfigurationError) {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConfigurationError("\(source) is not valid JSON")
        }
        guard let root = object as? [String: Any] else { throw ConfigurationError("\(source) must hold a JSON object") }
        for (key, value) in root.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "keysets":
                guard let items = value as? [[String: Any]], !items.isEmpty else {
                    throw ConfigurationError("keysets must be a non-empty array of {publishKey, subscribeKey}")
                }
                keysets = try items.map { item throws(ConfigurationError) in try Self.keyset(history.take(from: item)) }
            case "hooks":
                guard let items = value as? [[String: Any]] else { throw ConfigurationError("hooks must be an array of objects") }
                hooks = try items.map { item throws(ConfigurationError) in try Self.hook(item) }
            case "hookAllowList" where value is [Any]:
                guard let hosts = value as? [String] else { throw ConfigurationError("hookAllowList must hold strings") }
                hookAllowList = hosts
            case "limits":
                guard let limits = value as? [String: Any] else { throw ConfigurationError("limits must be an object") }
                for (name, limit) in limits.sorted(by: { $0.key < $1.key }) {
                    try set(name, Self.text(limit))
                }
            default:
                try set(key, Self.text(value))
            }
        }
    }

    /// Reads one keyset entry: its keys and any of the presence limits it overrides.
    private static func keyset(_ item: [String: Any]) throws(ConfigurationError) -> Keyset {
        guard let pub = item["publishKey"] as? String, let sub = item["subscribeKey"] as? String,
              !pub.isEmpty, !sub.isEmpty else {
            throw ConfigurationError("each keyset needs string publishKey and subscribeKey")
        }
        var keyset = Keyset(publishKey: pub, subscribeKey: sub)
        for (name, value) in item.sorted(by: { $0.key < $1.key }) where name != "publishKey" && name != "subscribeKey" {
            let number = try integer(text(value), "keyset \(sub): \(name)", range: 1...Int(Int32.max))
            switch name {
            case "presenceTimeoutSeconds": keyset.presence.presenceTimeoutSeconds = number
            case "presenceMinTimeoutSeconds": keyset.presence.presenceMinTimeoutSeconds = number
            case "announceMax": keyset.presence.announceMax = number
            case "presenceIntervalSeconds": keyset.presence.presenceIntervalSeconds = number
            case "maxStateBytes": keyset.presence.maxStateBytes = number
            default: throw ConfigurationError("unknown setting '\(name)' in keyset \(sub)")
            }
        }
        return keyset
    }

    private static func text(_ value: Any) -> String {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return "\(value)"
    }
}
