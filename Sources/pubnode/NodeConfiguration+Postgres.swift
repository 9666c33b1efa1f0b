import Foundation
import PubNodeCore
import PubNodeHistoryPostgres

extension NodeConfiguration {
    /// `historyUrl`: a PostgreSQL database for history (shared by the nodes of a cluster). A
    /// malformed URL is refused at start; help and logs never show its password.
    static let historyURLSetting = Setting(
        key: "historyUrl", flag: "history-url", environment: "PUBNODE_HISTORY_URL",
        allowed: "postgres://user:password@host:port/database",
        help: "Keep history (and message actions) in this PostgreSQL database instead of the data directory; "
            + "?sslmode=disable|prefer|require, ?pool=N.",
        repeatable: false,
        parse: { config, value throws(ConfigurationError) in
            let url = value.trimmingCharacters(in: .whitespaces)
            if !url.isEmpty {
                do throws(PostgresLocation.Invalid) { _ = try PostgresLocation(url: url) } catch {
                    throw ConfigurationError("historyUrl: \(error.description)")
                }
            }
            config.history.url = url
        },
        readJSON: nil,
        render: { config in
            (try? PostgresLocation(url: config.history.url)).map(\.description) ?? config.history.url
        })
}
