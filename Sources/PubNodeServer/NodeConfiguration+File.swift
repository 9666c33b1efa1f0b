import Foundation
import PubNodeCore

extension NodeConfiguration {
    /// Applies a JSON config file: top-level settings by name, `keysets` as an array of
    /// `{"publishKey":…,"subscribeKey":…}`, and a `limits` object. Unknown names are errors.
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
                keysets = try items.map { item throws(ConfigurationError) in
                    guard let pub = item["publishKey"] as? String, let sub = item["subscribeKey"] as? String,
                          !pub.isEmpty, !sub.isEmpty else {
                        throw ConfigurationError("each keyset needs string publishKey and subscribeKey")
                    }
                    return Keyset(publishKey: pub, subscribeKey: sub)
                }
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

    private static func text(_ value: Any) -> String {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return "\(value)"
    }
}
