import Foundation

extension NodeConfiguration {
    /// The settings part of `pubnode --help`: every row of the table with its flag, accepted
    /// values, help, default, environment variable and file key.
    static var settingsHelp: String {
        var lines = [
            "Settings come from, in increasing precedence: built-in defaults, the --config JSON file, "
                + "PUBNODE_* environment variables, then flags. With no settings it serves the open demo/demo "
                + "keyset on 127.0.0.1:8090 and keeps history in ./pubnode-data.",
            "",
            "SETTINGS (flag, environment variable, config file key):",
        ]
        for setting in settings {
            let shown = setting.defaultText.isEmpty ? "none" : setting.defaultText
            lines.append("  --\(setting.flag) <\(setting.allowed)>\(setting.repeatable ? " (repeatable)" : "")")
            lines += wrapped("\(setting.help) Default: \(shown).", indent: 8, width: 78)
            lines.append("        \(setting.environment), file: \(setting.key)")
        }
        lines.append("")
        lines.append("The config file also takes per-keyset overrides in `keysets` entries and webhooks in "
                     + "`hooks`; see Docs/configuration.md and Docs/hooks.md.")
        return lines.joined(separator: "\n")
    }

    /// `text` broken into lines of at most `width` columns, each indented by `indent` spaces, so
    /// the help keeps its shape on an 80-column terminal.
    private static func wrapped(_ text: String, indent: Int, width: Int) -> [String] {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = margin
        for word in text.split(separator: " ") {
            if line.count > indent, line.count + 1 + word.count > width {
                lines.append(line)
                line = margin
            }
            line += (line.count > indent ? " " : "") + word
        }
        lines.append(line)
        return lines
    }

    /// The settings table of `Docs/configuration.md`, generated from `settings`.
    static var settingsMarkdown: String {
        var lines = [
            "| file key | flag | environment | accepted | default | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for setting in settings {
            let shown = setting.defaultText.isEmpty ? "none" : "`\(setting.defaultText)`"
            let flag = "`--\(setting.flag)`" + (setting.repeatable ? " (repeat)" : "")
            let allowed = setting.allowed.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| `\(setting.key)` | \(flag) | `\(setting.environment)` | \(allowed) | \(shown) | \(setting.help) |")
        }
        return lines.joined(separator: "\n")
    }
}
