import PubNodeAccessWire

/// A grant request's body (`POST /v3/pam/{sub}/grant`) read into an unsigned token, with PubNub's
/// 400 answers for what is wrong (notes §2.1): the shape the SDKs send,
///
///     {"ttl":60,"permissions":{"resources":{"channels":{"ch1":3},"groups":{},"uuids":{},"users":{},"spaces":{}},
///      "patterns":{…same…},"meta":{},"uuid":"…"}}
///
/// (`users` and `spaces` mirror `uuids` and `channels` and are ignored).
enum TokenGrant {
    /// The longest body read.
    static let maxBody = 64 * 1024
    /// The most resources and patterns one token may name (the token must fit in a URL).
    static let maxEntries = 200
    /// The most compiled pattern instructions one token may hold (the cost of matching a name
    /// against all of its patterns, per character).
    static let maxPatternCost = 4096
    /// Range of `ttl` in minutes.
    static let ttlRange = 1...43_200

    /// Reads `body` into a token issued at `now` (unix seconds), not yet signed.
    static func parse(_ body: [UInt8], now: UInt64) throws(PubNodeError) -> AccessToken {
        guard body.count <= maxBody else { throw invalid("Request body is too large", "body", "body") }
        guard let root = try? CBORValue(json: body), root.mapEntries != nil else {
            throw invalid("Request body must be a JSON object", "body", "body")
        }
        let ttl = try Self.ttl(root["ttl"])
        guard let permissions = root["permissions"], permissions.mapEntries != nil else {
            throw invalid("permissions must be an object", "permissions", "body")
        }
        var cost = 0
        let resources = try grants(permissions["resources"], at: "permissions.resources", patterns: false, cost: &cost)
        let patterns = try grants(permissions["patterns"], at: "permissions.patterns", patterns: true, cost: &cost)
        let count = [resources, patterns].reduce(0) { $0 + $1.channels.count + $1.groups.count + $1.uuids.count }
        guard cost <= maxPatternCost else {
            throw invalid("The token's patterns are too complex together (\(cost) of \(maxPatternCost) instructions)",
                          "permissions.patterns", "body")
        }
        guard count > 0 else { throw invalid("The token would grant nothing", "permissions", "body") }
        guard count <= maxEntries else {
            throw invalid("At most \(maxEntries) resources and patterns per token", "permissions", "body")
        }
        let meta = permissions["meta"] ?? .map([])
        guard case .map = meta else { throw invalid("meta must be an object", "permissions.meta", "body") }
        guard meta.encoded().count <= 4096 else { throw invalid("meta is too large (4 KiB at most)", "permissions.meta", "body") }
        var uuid: String?
        switch permissions["uuid"] {
        case nil, .null?: uuid = nil
        case .text(let text)? where !text.isEmpty && text.utf8.count <= 92: uuid = text
        default: throw invalid("uuid must be a non-empty string of at most 92 bytes", "permissions.uuid", "body")
        }
        return AccessToken(issued: now, ttlMinutes: ttl, resources: resources, patterns: patterns, meta: meta,
                           authorizedUUID: uuid)
    }

    private static func ttl(_ value: CBORValue?) throws(PubNodeError) -> Int {
        var minutes: Int?
        switch value {
        case .unsigned(let number)?: minutes = number <= UInt64(Int.max) ? Int(number) : nil
        case .negative?: minutes = -1
        case .text(let text)?: minutes = Int(text)
        default: minutes = nil
        }
        guard let minutes, ttlRange.contains(minutes) else {
            throw .accessInvalid(message: "Invalid ttl", source: "grant", detail: "Range should be 1 to 43200 minute(s).",
                                 location: "ttl", locationType: "body")
        }
        return minutes
    }

    /// The channels, groups and uuids of `resources` or `patterns`; each pattern is compiled once,
    /// to check it and to add its size to `cost`.
    private static func grants(_ value: CBORValue?, at path: String, patterns: Bool, cost: inout Int)
        throws(PubNodeError) -> AccessToken.Grants {
        guard let value else { return AccessToken.Grants(channels: [:], groups: [:], uuids: [:]) }
        guard value.mapEntries != nil else { throw invalid("\(path) must be an object", path, "body") }
        return AccessToken.Grants(
            channels: try entries(value["channels"], at: path + ".channels", patterns: patterns, cost: &cost),
            groups: try entries(value["groups"], at: path + ".groups", patterns: patterns, cost: &cost),
            uuids: try entries(value["uuids"], at: path + ".uuids", patterns: patterns, cost: &cost))
    }

    private static func entries(_ value: CBORValue?, at path: String, patterns: Bool, cost: inout Int)
        throws(PubNodeError) -> [String: AccessPermissions] {
        guard let value else { return [:] }
        guard case .map(let pairs) = value else { throw invalid("\(path) must be an object", path, "body") }
        var result: [String: AccessPermissions] = [:]
        for pair in pairs {
            guard case .text(let name) = pair.key, !name.isEmpty, name.utf8.count <= ResourcePattern.maxLength else {
                throw invalid("\(path): names are 1 to \(ResourcePattern.maxLength) bytes", path, "body")
            }
            guard case .unsigned(let bits) = pair.value, bits <= 0xFF else {
                throw invalid("\(path).\(name): permissions are a bitmask from 0 to 255", path, "body")
            }
            if patterns {
                do { cost += try ResourcePattern(name).cost } catch {
                    throw invalid("\(path): '\(name)' is not a supported regular expression (\(error))", path, "body")
                }
            }
            result[name] = AccessPermissions(rawValue: UInt32(bits))
        }
        return result
    }

    private static func invalid(_ detail: String, _ location: String, _ type: String) -> PubNodeError {
        .accessInvalid(message: "Invalid permissions", source: "grant", detail: detail, location: location, locationType: type)
    }
}
