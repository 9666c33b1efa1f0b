import Foundation
import PubNodeAccessWire

extension PubNodeClient {
    /// The access token the next request carries (`auth`).
    public var authToken: String? { access.token }

    /// Replaces the access token (nil: none). Takes effect from the next request, including the
    /// next subscribe long-poll; the one under way is not interrupted, so nothing is lost or
    /// delivered twice. Restarts the `tokenNearingExpiry` timer for the new token.
    public func set(token: String?) {
        access.set(token)
    }

    /// The contents of a v3 access token, without checking its signature.
    public static func parse(token: String) throws(PubNodeClientError) -> PubNodeToken {
        do {
            return PubNodeToken(try AccessToken.decode(token))
        } catch {
            throw .decoding("not an access token: \(error)")
        }
    }

    /// The contents of a v3 access token (as `PubNodeClient.parse(token:)`); nil when it is not one.
    public func parse(token: String) -> PubNodeToken? {
        try? Self.parse(token: token)
    }

    /// Grants a v3 access token (needs the secret key): `ttl` minutes of the given permissions on
    /// named `resources` and on resources matching `patterns` (regular expressions), usable only by
    /// `authorizedUUID` when given, with `meta` inside. Returns the token.
    public func grantToken(ttl: Int, authorizedUUID: String? = nil, resources: TokenResources = TokenResources(),
                           patterns: TokenResources = TokenResources(),
                           meta: [String: JSONValue]? = nil) async throws(PubNodeClientError) -> String {
        guard configuration.secretKey != nil else { throw .invalidArgument("granting a token needs the secret key") }
        guard ttl > 0 else { throw .invalidArgument("ttl must be at least 1 minute") }
        guard !resources.isEmpty || !patterns.isEmpty else {
            throw .invalidArgument("a grant needs at least one channel, group or uuid")
        }
        let body = Self.grantBody(ttl: ttl, authorizedUUID: authorizedUUID, resources: resources,
                                  patterns: patterns, meta: meta)
        let request = try builder.request(["v3", "pam", Percent.encode(configuration.subscribeKey), "grant"],
                                          method: "POST", query: [], body: Data(body.utf8),
                                          headers: ["Content-Type": "application/json"], includeAuth: false)
        let answer = try await Self.send(request, through: transport)
        guard let token = answer["data"]?["token"]?.stringValue else {
            throw .decoding("unexpected grant answer \(answer)")
        }
        return token
    }

    /// Revokes a token granted before (needs the secret key); requests carrying it are refused from now on.
    public func revokeToken(_ token: String) async throws(PubNodeClientError) {
        guard configuration.secretKey != nil else { throw .invalidArgument("revoking a token needs the secret key") }
        let request = try builder.request(
            ["v3", "pam", Percent.encode(configuration.subscribeKey), "grant", Percent.encode(token)],
            method: "DELETE", query: [], includeAuth: false)
        _ = try await Self.send(request, through: transport)
    }

    /// The grant body in the exact form the Python SDK sends: `json.dumps` separators, all five
    /// resource kinds (`users` mirrors `uuids`, `spaces` mirrors `channels`), `meta` always present.
    static func grantBody(ttl: Int, authorizedUUID: String?, resources: TokenResources, patterns: TokenResources,
                          meta: [String: JSONValue]?) -> String {
        func permissions(_ items: [String: TokenPermissions]) -> String {
            "{" + items.sorted { $0.key < $1.key }
                .map { "\(pythonJSON(.string($0.key))): \($0.value.rawValue)" }.joined(separator: ", ") + "}"
        }
        func kinds(_ grants: TokenResources) -> String {
            let channels = permissions(grants.channels), groups = permissions(grants.groups)
            let uuids = permissions(grants.uuids)
            return "{\"channels\": \(channels), \"groups\": \(groups), \"uuids\": \(uuids), "
                + "\"users\": \(uuids), \"spaces\": \(channels)}"
        }
        var text = "{\"ttl\": \(ttl), \"permissions\": {\"resources\": \(kinds(resources)), "
            + "\"patterns\": \(kinds(patterns)), \"meta\": \(pythonJSON(.object(meta ?? [:])))"
        if let authorizedUUID { text += ", \"uuid\": \(pythonJSON(.string(authorizedUUID)))" }
        return text + "}}"
    }

    /// JSON as Python's `json.dumps` writes it: `", "` and `": "` separators, non-ASCII escaped
    /// (keys of objects sorted, since `JSONValue` keeps no order).
    static func pythonJSON(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return number.isFinite ? String(number) : "null"
        case .string(let text):
            var out = "\""
            for unit in text.utf16 {
                switch unit {
                case 0x22: out += "\\\""
                case 0x5C: out += "\\\\"
                case 0x0A: out += "\\n"
                case 0x0D: out += "\\r"
                case 0x09: out += "\\t"
                case 0x08: out += "\\b"
                case 0x0C: out += "\\f"
                case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
                default: out += "\\u" + String(unit, radix: 16).leftPadded(to: 4)
                }
            }
            return out + "\""
        case .array(let items): return "[" + items.map(pythonJSON).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }
                .map { pythonJSON(.string($0.key)) + ": " + pythonJSON($0.value) }.joined(separator: ", ") + "}"
        }
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
