import Foundation
import PubNodeCore

/// One row of the settings table: a configuration value with every name it is known by, what it
/// accepts, its help, and how its text is applied to a `NodeConfiguration`.
///
/// Flags, environment variables, the config file, `--help` and `Docs/configuration.md` are all
/// driven from these rows; the default shown is read from `NodeConfiguration()`, never repeated.
struct Setting: Sendable {
    /// Key in the JSON config file (top level, or inside `limits` for limits); errors name it.
    let key: String
    /// Command-line flag without its leading dashes, e.g. `long-poll-timeout`.
    let flag: String
    /// Environment variable, `PUBNODE_*`.
    let environment: String
    /// What the value may be, for help: a range, `true|false`, a list of words.
    let allowed: String
    /// One-line help text.
    let help: String
    /// Whether repeating the flag adds to the list (values joined with commas) instead of replacing it.
    let repeatable: Bool
    /// Applies a textual value: a flag, an environment variable or a scalar in the file.
    let parse: @Sendable (inout NodeConfiguration, String) throws(ConfigurationError) -> Void
    /// Applies a structured file value (an array); nil when the file gives only text or numbers.
    let readJSON: (@Sendable (inout NodeConfiguration, Any) throws(ConfigurationError) -> Void)?
    /// The value a configuration holds, as help shows it.
    let render: @Sendable (NodeConfiguration) -> String

    /// The default, read from `NodeConfiguration()`.
    var defaultText: String { render(NodeConfiguration()) }
}

extension Setting {
    /// An integer setting within `range`, stored at `path`.
    static func integer(_ key: String, flag: String, environment: String,
                        _ path: WritableKeyPath<NodeConfiguration, Int> & Sendable,
                        in range: ClosedRange<Int>, help: String) -> Setting {
        Setting(key: key, flag: flag, environment: environment,
                allowed: "\(range.lowerBound)...\(range.upperBound)", help: help, repeatable: false,
                parse: { config, value throws(ConfigurationError) in
                    config[keyPath: path] = try integer(value, key, range: range)
                },
                readJSON: nil, render: { "\($0[keyPath: path])" })
    }

    /// A field of `Limits` (`path` goes through `\.limits`): 0...Int32.max here, while
    /// `Limits.validate()` applies each limit's own rules to the merged result.
    static func limit(_ key: String, flag: String, environment: String,
                      _ path: WritableKeyPath<NodeConfiguration, Int> & Sendable, help: String) -> Setting {
        integer(key, flag: flag, environment: environment, path, in: 0...Int(Int32.max), help: help)
    }

    /// A rate in events per second (decimals allowed) stored at `path`; 0 is stored as nil, unlimited.
    static func rate(_ key: String, flag: String, environment: String,
                     _ path: WritableKeyPath<NodeConfiguration, Double?> & Sendable, help: String) -> Setting {
        Setting(key: key, flag: flag, environment: environment, allowed: "0...\(Int(maxRate))", help: help,
                repeatable: false,
                parse: { config, value throws(ConfigurationError) in
                    let rate = try Self.rate(value, key)
                    config[keyPath: path] = rate > 0 ? rate : nil
                },
                readJSON: nil, render: { renderRate($0[keyPath: path] ?? 0) })
    }

    /// The highest rate a setting accepts.
    static let maxRate = 1_000_000.0

    /// Parses a rate in 0...`maxRate`; the error names the setting.
    static func rate(_ text: String, _ name: String) throws(ConfigurationError) -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, (0...maxRate).contains(value) else {
            throw ConfigurationError("\(name) must be a number in 0...\(Int(maxRate)) (got '\(text)')")
        }
        return value
    }

    /// A rate as help shows it: whole numbers without a fraction.
    static func renderRate(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// A `true`/`false` setting stored at `path` (also `1`/`0`, `yes`/`no`, `on`/`off`).
    static func boolean(_ key: String, flag: String, environment: String,
                        _ path: WritableKeyPath<NodeConfiguration, Bool> & Sendable, help: String) -> Setting {
        Setting(key: key, flag: flag, environment: environment, allowed: "true|false", help: help, repeatable: false,
                parse: { config, value throws(ConfigurationError) in
                    config[keyPath: path] = try boolean(value, key)
                },
                readJSON: nil, render: { "\($0[keyPath: path])" })
    }

    /// A text setting stored at `path` after `check` accepts (and may normalise) it.
    static func text(_ key: String, flag: String, environment: String,
                     _ path: WritableKeyPath<NodeConfiguration, String> & Sendable, allowed: String = "text",
                     help: String,
                     check: @escaping @Sendable (String) throws(ConfigurationError) -> String = { $0 }) -> Setting {
        Setting(key: key, flag: flag, environment: environment, allowed: allowed, help: help, repeatable: false,
                parse: { config, value throws(ConfigurationError) in config[keyPath: path] = try check(value) },
                readJSON: nil, render: { $0[keyPath: path] })
    }

    /// A text setting that is one of `names` (matched in any case, stored in lower case) at `path`;
    /// the error names the setting, the choices and the value given.
    static func choice(_ key: String, flag: String, environment: String,
                       _ path: WritableKeyPath<NodeConfiguration, String> & Sendable, names: [String],
                       help: String) -> Setting {
        text(key, flag: flag, environment: environment, path, allowed: names.joined(separator: "|"),
             help: help) { value throws(ConfigurationError) in
            guard names.contains(value.lowercased()) else {
                throw ConfigurationError("\(key) must be one of \(names.joined(separator: ", ")) (got '\(value)')")
            }
            return value.lowercased()
        }
    }

    /// Parses an integer within `range`; the error names the setting and the range.
    static func integer(_ text: String, _ name: String, range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw ConfigurationError("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound) (got '\(text)')")
        }
        return value
    }

    /// Parses `true`/`false`/`1`/`0`/`yes`/`no`/`on`/`off`.
    static func boolean(_ text: String, _ name: String) throws(ConfigurationError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError("\(name) must be true or false (got '\(text)')")
        }
    }

    /// The text of a scalar JSON value (a string as is, a number or boolean as written).
    static func text(of value: Any) -> String {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return "\(value)"
    }
}
