import Foundation
import PubNodeCore

extension NodeConfiguration {
    /// `appContextEvents`: whether the configured keysets announce App Context changes as `e: 2`
    /// events; a keyset entry of the file may say otherwise with its own `"appContextEvents"`.
    static let appContextEventsSetting = Setting(
        key: "appContextEvents", flag: "app-context-events", environment: "PUBNODE_APP_CONTEXT_EVENTS",
        allowed: "true|false",
        help: "Announce App Context changes (metadata, memberships) to subscribers as e:2 events on the configured "
            + "keysets (a keyset entry may override it); off by default, as on PubNub.",
        repeatable: false,
        parse: { config, value throws(ConfigurationError) in
            config.appContextEvents = try Setting.boolean(value, "appContextEvents")
            config.applyAppContextEvents()
        },
        readJSON: nil,
        render: { "\($0.appContextEvents)" })

    /// Gives every configured keyset its App Context events switch: its own entry's, else the
    /// node-wide setting. Called whenever either changes, so the order of the sources never matters.
    mutating func applyAppContextEvents() {
        for index in keysets.indices {
            keysets[index].appContextEvents = appContextEventOverrides[keysets[index].subscribeKey] ?? appContextEvents
        }
    }

    /// Keeps a keyset entry's own `appContextEvents` (a JSON boolean) and returns the entry without it.
    mutating func takeAppContextEvents(from item: [String: Any]) throws(ConfigurationError) -> [String: Any] {
        guard let subscribeKey = item["subscribeKey"] as? String else { return item }
        var rest = item
        if let value = rest.removeValue(forKey: "appContextEvents") {
            guard let flag = Setting.jsonBoolean(value) else {
                throw ConfigurationError("keyset \(subscribeKey): appContextEvents must be true or false "
                                         + "(got \(Setting.text(of: value).prefix(40)))")
            }
            appContextEventOverrides[subscribeKey] = flag
        }
        return rest
    }
}

extension Setting {
    /// A JSON `true` or `false` (not a number or a string), as `JSONSerialization` decodes it.
    static func jsonBoolean(_ value: Any) -> Bool? {
        guard let number = value as? NSNumber, type(of: number) == type(of: NSNumber(value: true)) else { return nil }
        return number.boolValue
    }
}
