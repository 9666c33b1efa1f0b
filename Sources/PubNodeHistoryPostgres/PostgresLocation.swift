import Foundation
import PostgresNIO

/// Where a PostgreSQL database is, parsed from `postgres://user:password@host:port/database`
/// (or `postgresql://`). `?sslmode=disable|prefer|require` chooses TLS (default `prefer`);
/// `?pool=N` the most connections the node opens (1...100, default 8).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role to connect as.
    public var user: String
    /// The role's password, if any.
    public var password: String?
    /// The database.
    public var database: String
    /// TLS: `disable`, `prefer` or `require`.
    public var sslMode: String
    /// The most connections the pool opens.
    public var poolSize: Int
    /// A schema to use instead of `public` (tests isolate themselves with it); nil: the role's default.
    public var schema: String?

    /// Why a URL is refused.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// The reason, without the URL (it may hold a password).
        public var description: String
    }

    /// Parses `url`; throws `Invalid` naming what is wrong.
    public init(url: String) throws(Invalid) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased() else {
            throw Invalid(description: "not a URL; expected postgres://user:password@host:port/database")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Invalid(description: "scheme \(scheme) is not postgres")
        }
        guard let host = parts.host, !host.isEmpty else { throw Invalid(description: "no host") }
        guard let user = parts.user, !user.isEmpty else { throw Invalid(description: "no user") }
        let database = String(parts.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw Invalid(description: "no database name after the host") }
        let port = parts.port ?? 5432
        guard (1...65535).contains(port) else { throw Invalid(description: "port \(port) out of range") }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.user = user
        self.password = parts.password
        self.database = database
        sslMode = "prefer"
        poolSize = 8
        for item in parts.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value, ["disable", "prefer", "require"].contains(mode) else {
                    throw Invalid(description: "sslmode must be disable, prefer or require")
                }
                sslMode = mode
            case "pool":
                guard let size = item.value.flatMap(Int.init), (1...100).contains(size) else {
                    throw Invalid(description: "pool must be 1...100")
                }
                poolSize = size
            default:
                throw Invalid(description: "unknown parameter \(item.name) (known: sslmode, pool)")
            }
        }
    }

    /// The location without its password, for logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// postgres-nio's configuration of this location.
    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "require": .require(.makeClientConfiguration())
        default: .prefer(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                                         database: database, tls: tls)
        configuration.options.maximumConnections = poolSize
        configuration.options.minimumConnections = 1
        if let schema { configuration.options.additionalStartupParameters = [("search_path", schema)] }
        return configuration
    }
}
