import Foundation
import PubNodeCore

extension NodeConfiguration {
    /// `keysets`: `pub:sub[:secret]` entries. The flag repeats, the environment takes a
    /// comma-separated list, the file an array of `{"publishKey":…,"subscribeKey":…}` objects with
    /// optional `secretKey`, `accessManager`, `appContextEvents` and overrides. A secret turns Access
    /// Manager on (in the file, unless `"accessManager":false`).
    static let keysetsSetting = Setting(
        key: "keysets", flag: "keyset", environment: "PUBNODE_KEYSETS", allowed: "pub:sub[:secret][,…]",
        help: "Keysets served, publishKey:subscribeKey[:secretKey] (a secret turns Access Manager on); repeat for several (replaces demo:demo).",
        repeatable: true,
        parse: { config, value throws(ConfigurationError) in
            config.keysets = try parseKeysets(value)
            config.applyAppContextEvents()
        },
        readJSON: { config, value throws(ConfigurationError) in
            guard let items = value as? [[String: Any]], !items.isEmpty else {
                throw ConfigurationError("keysets must be a non-empty array of {publishKey, subscribeKey}")
            }
            config.keysets = try items.map { item throws(ConfigurationError) in
                try keyset(config.takeAppContextEvents(from: config.history.take(from: item)))
            }
            config.applyAppContextEvents()
        },
        render: { $0.keysets.map { "\($0.publishKey):\($0.subscribeKey)" + ($0.secretKey == nil ? "" : ":(secret)") }
            .joined(separator: ",") })

    /// `hookAllowList`: hosts webhooks may call; comma-separated, or an array of strings in the file.
    static let hookAllowListSetting = Setting(
        key: "hookAllowList", flag: "hook-allow-list", environment: "PUBNODE_HOOK_ALLOW_LIST",
        allowed: "host[,host…]", help: "Hosts webhooks may call (a.example, *.b.example); empty allows any.",
        repeatable: true,
        parse: { config, value throws(ConfigurationError) in config.hookAllowList = hostList(value) },
        readJSON: { config, value throws(ConfigurationError) in
            guard value is [Any] else { return config.hookAllowList = hostList(Setting.text(of: value)) }
            guard let hosts = value as? [String] else { throw ConfigurationError("hookAllowList must hold strings") }
            config.hookAllowList = hosts
        },
        render: { $0.hookAllowList.joined(separator: ",") })

    /// `adminToken`: the bearer token of `/v1/admin`, at least 16 characters.
    static let adminTokenSetting = Setting(
        key: "adminToken", flag: "admin-token", environment: "PUBNODE_ADMIN_TOKEN", allowed: "16+ characters",
        help: "Bearer token of the /v1/admin endpoints (refused without one); prefer the environment or file.",
        repeatable: false,
        parse: { config, value throws(ConfigurationError) in
            guard value.utf8.count >= 16 else { throw ConfigurationError("adminToken must be at least 16 characters") }
            config.adminToken = value
        },
        readJSON: nil,
        render: { $0.adminToken == nil ? "" : "(set)" })

    /// Splits `a.example, *.b.example` into hosts.
    static func hostList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Parses `pub:sub,pub2:sub2:secret`.
    static func parseKeysets(_ text: String) throws(ConfigurationError) -> [Keyset] {
        var result: [Keyset] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3, !parts.contains(where: \.isEmpty) else {
                throw ConfigurationError("keyset '\(item.split(separator: ":").prefix(2).joined(separator: ":"))…' must be publishKey:subscribeKey[:secretKey]")
            }
            result.append(Keyset(publishKey: String(parts[0]), subscribeKey: String(parts[1]),
                                 secretKey: parts.count == 3 ? String(parts[2]) : nil))
        }
        guard !result.isEmpty else { throw ConfigurationError("keysets must name at least one publishKey:subscribeKey") }
        return result
    }

    /// Reads one keyset entry of the file: its keys and any of the presence limits it overrides.
    static func keyset(_ item: [String: Any]) throws(ConfigurationError) -> Keyset {
        guard let pub = item["publishKey"] as? String, let sub = item["subscribeKey"] as? String,
              !pub.isEmpty, !sub.isEmpty else {
            throw ConfigurationError("each keyset needs string publishKey and subscribeKey")
        }
        var secret: String?
        if let value = item["secretKey"] {
            guard let text = value as? String, !text.isEmpty else { throw ConfigurationError("keyset \(sub): secretKey must be a non-empty string") }
            secret = text
        }
        var accessManager: Bool?
        if let value = item["accessManager"] {
            guard let flag = value as? Bool else { throw ConfigurationError("keyset \(sub): accessManager must be true or false") }
            guard !flag || secret != nil else { throw ConfigurationError("keyset \(sub): accessManager needs a secretKey") }
            accessManager = flag
        }
        var keyset = Keyset(publishKey: pub, subscribeKey: sub, secretKey: secret, accessManager: accessManager,
                            rateLimits: try rateLimits(item["rateLimits"], keyset: sub))
        let named: Set<String> = ["publishKey", "subscribeKey", "secretKey", "accessManager", "rateLimits"]
        for (name, value) in item.sorted(by: { $0.key < $1.key }) where !named.contains(name) {
            let number = try Setting.integer(Setting.text(of: value), "keyset \(sub): \(name)", range: 1...Int(Int32.max))
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

    /// A keyset entry's `rateLimits`: `{"publishesPerSecond":N,"requestsPerSecond":N}`, each optional.
    static func rateLimits(_ value: Any?, keyset sub: String) throws(ConfigurationError) -> RateLimits? {
        guard let value else { return nil }
        guard let object = value as? [String: Any] else { throw ConfigurationError("keyset \(sub): rateLimits must be an object") }
        var limits = RateLimits()
        for (name, rate) in object {
            guard let number = (rate as? NSNumber)?.doubleValue, number.isFinite, number >= 0, !(rate is Bool) else {
                throw ConfigurationError("keyset \(sub): rateLimits.\(name) must be a number of 0 or more")
            }
            switch name {
            case "publishesPerSecond": limits.publishesPerSecond = number
            case "requestsPerSecond": limits.requestsPerSecond = number
            default: throw ConfigurationError("keyset \(sub): unknown rate limit '\(name)'")
            }
        }
        return limits
    }
}
