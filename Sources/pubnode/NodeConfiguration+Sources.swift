import Foundation
import PubNodeCore

extension NodeConfiguration {
    /// Merges every source in precedence order — defaults, the file at `file`, `environment`, then
    /// `flags` — and validates the result.
    static func resolve(file: String?, environment: [String: String], flags: [String]) throws(ConfigurationError)
        -> NodeConfiguration {
        var configuration = NodeConfiguration()
        if let file { try configuration.apply(fileAt: file) }
        try configuration.apply(environment: environment)
        try configuration.apply(flags: flags)
        try configuration.validate()
        return configuration
    }

    /// Applies `key = value` by the setting's file key.
    mutating func set(_ key: String, _ value: String) throws(ConfigurationError) {
        guard let setting = Self.setting(key) else { throw ConfigurationError("unknown setting '\(key)'") }
        try setting.parse(&self, value)
    }

    /// Applies every `PUBNODE_*` variable of the table present in `environment`.
    mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        for setting in Self.settings {
            if let value = environment[setting.environment] { try setting.parse(&self, value) }
        }
    }

    /// Applies `--flag value` and `--flag=value` arguments of the table, left to right; a
    /// repeatable flag given several times applies all its values together.
    mutating func apply(flags arguments: [String]) throws(ConfigurationError) {
        var repeated: [(setting: Setting, values: [String])] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError("unexpected argument '\(argument)'")
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let setting = Self.settings.first(where: { $0.flag == name }) else {
                throw ConfigurationError("unknown option '--\(name)'")
            }
            if value == nil {
                index += 1
                guard index < arguments.endIndex else { throw ConfigurationError("missing value for '--\(name)'") }
                value = arguments[index]
            }
            let text = value ?? ""
            if setting.repeatable {
                if let slot = repeated.firstIndex(where: { $0.setting.key == setting.key }) {
                    repeated[slot].values.append(text)
                } else {
                    repeated.append((setting, [text]))
                }
            } else {
                try setting.parse(&self, text)
            }
            index += 1
        }
        for (setting, values) in repeated { try setting.parse(&self, values.joined(separator: ",")) }
    }
}
