import Foundation
import PubNodeCore

extension NodeConfiguration {
    /// Applies a JSON config file: top-level settings by their file key (see `settings`), a `limits`
    /// object of settings, `keysets` as an array of `{"publishKey":…,"subscribeKey":…}` (optionally
    /// with presence and history overrides such as `"presenceTimeoutSeconds":60`), and `hooks`.
    /// Unknown names are errors.
    mutating func apply(fileAt path: String) throws(ConfigurationError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConfigurationError("cannot read config file \(path): \(error.localizedDescription)")
        }
        try apply(json: data, source: path)
    }

    /// Applies JSON config text (see `apply(fileAt:)`).
    mutating func apply(json data: Data, source: String = "config") throws(ConfigurationError) {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConfigurationError("\(source) is not valid JSON")
        }
        guard let root = object as? [String: Any] else { throw ConfigurationError("\(source) must hold a JSON object") }
        for (key, value) in root.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "hooks":
                guard let items = value as? [[String: Any]] else { throw ConfigurationError("hooks must be an array of objects") }
                hooks = try items.map { item throws(ConfigurationError) in try Self.hook(item) }
            case "limits":
                guard let limits = value as? [String: Any] else { throw ConfigurationError("limits must be an object") }
                for (name, limit) in limits.sorted(by: { $0.key < $1.key }) {
                    try apply(fileKey: name, value: limit)
                }
            default:
                try apply(fileKey: key, value: value)
            }
        }
    }

    /// Applies one file value through its setting: structured values where the setting reads
    /// them, otherwise the value's text.
    private mutating func apply(fileKey key: String, value: Any) throws(ConfigurationError) {
        guard let setting = Self.setting(key) else { throw ConfigurationError("unknown setting '\(key)'") }
        if let readJSON = setting.readJSON {
            try readJSON(&self, value)
        } else {
            try setting.parse(&self, Setting.text(of: value))
        }
    }
}
