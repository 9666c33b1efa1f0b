/// Where a Redis server is: parsed from `redis://[[user]:password@]host[:port][/db]`.
public struct RedisAddress: Sendable, Equatable, CustomStringConvertible {
    /// Host name or IP address.
    public var host: String
    /// TCP port (6379 by default).
    public var port: Int
    /// Database number selected after connecting (0 by default).
    public var database: Int
    /// ACL user name, if any.
    public var user: String?
    /// Password (`AUTH`), if any.
    public var password: String?

    /// An address.
    public init(host: String, port: Int = 6379, database: Int = 0, user: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
    }

    /// Parses `redis://…`; throws `RedisError.invalidURL` with the reason.
    public init(url: String) throws(RedisError) {
        guard url.hasPrefix("redis://") else { throw .invalidURL("must start with redis://") }
        var rest = Substring(url.dropFirst("redis://".count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let number = Int(path), number >= 0, number < 1_000 else { throw .invalidURL("database must be a number") }
                database = number
            }
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let name = credentials[..<colon]
                user = name.isEmpty ? nil : String(name)
                password = String(credentials[credentials.index(after: colon)...])
            } else {
                password = String(credentials)
            }
        }
        var host = String(rest)
        var port = 6379
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidURL("unterminated IPv6 address") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let tail = rest[rest.index(after: close)...]
            if !tail.isEmpty {
                guard tail.hasPrefix(":"), let number = Int(tail.dropFirst()) else { throw .invalidURL("bad port") }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let number = Int(rest[rest.index(after: colon)...]) else { throw .invalidURL("bad port") }
            port = number
        }
        guard !host.isEmpty else { throw .invalidURL("no host") }
        guard (1...65_535).contains(port) else { throw .invalidURL("port out of range") }
        self.init(host: host, port: port, database: database, user: user, password: password)
    }

    /// `AUTH [user] password` when the address carries a password; nil otherwise.
    var authCommand: [RESPArgument]? {
        guard let password else { return nil }
        return ["AUTH"] + (user.map { [.text($0)] } ?? []) + [.text(password)]
    }

    /// The address without its password, for logs.
    public var description: String {
        "redis://\(password == nil ? "" : "***@")\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }
}
