import Foundation
import PubNodeAccessWire

/// What a token allows on one resource: PubNub's permission bits (read 1, write 2, manage 4,
/// delete 8, create 16, get 32, update 64, join 128), shared with the node.
public typealias TokenPermissions = AccessPermissions

extension AccessPermissions {
    /// Every permission with its letter, in the order of `"rwmdcguj"`.
    public static let letters: [(Character, TokenPermissions)] = [
        ("r", .read), ("w", .write), ("m", .manage), ("d", .delete),
        ("c", .create), ("g", .get), ("u", .update), ("j", .join),
    ]

    /// Permissions from letters such as `"rw"` or `"rwmdcguj"`; nil for an unknown letter.
    public init?(letters text: String) {
        var bits: TokenPermissions = []
        for character in text.lowercased() {
            guard let match = Self.letters.first(where: { $0.0 == character }) else { return nil }
            bits.insert(match.1)
        }
        self = bits
    }

    /// The letters of the permissions held, e.g. `"rw"`.
    public var letters: String { String(Self.letters.filter { contains($0.1) }.map(\.0)) }
}

/// Permissions per channel, channel group and user id: the `resources` or `patterns` of a grant.
public struct TokenResources: Sendable, Equatable {
    /// Channel names (or regular expressions, as patterns) and their permissions.
    public var channels: [String: TokenPermissions]
    /// Channel groups and their permissions.
    public var groups: [String: TokenPermissions]
    /// User ids and their permissions.
    public var uuids: [String: TokenPermissions]

    /// Resources; all empty by default.
    public init(channels: [String: TokenPermissions] = [:], groups: [String: TokenPermissions] = [:],
                uuids: [String: TokenPermissions] = [:]) {
        self.channels = channels
        self.groups = groups
        self.uuids = uuids
    }

    /// Whether no resource is named.
    public var isEmpty: Bool { channels.isEmpty && groups.isEmpty && uuids.isEmpty }
}

/// The contents of a v3 access token, as `PubNodeClient.parse(token:)` reads them (signature unchecked).
public struct PubNodeToken: Sendable, Equatable {
    /// The token format version (2 for v3 tokens).
    public var version: Int
    /// When it was issued, in Unix seconds.
    public var timestamp: UInt64
    /// Its lifetime in minutes.
    public var ttl: Int
    /// The only user id that may use it, if restricted.
    public var authorizedUUID: String?
    /// Permissions on named resources.
    public var resources: TokenResources
    /// Permissions on resources matching regular expressions.
    public var patterns: TokenResources
    /// The `meta` given at grant time.
    public var meta: JSONValue
    /// When it expires, in Unix seconds.
    public var expiresAt: UInt64 { timestamp + UInt64(max(0, ttl)) * 60 }

    /// A token's contents.
    public init(version: Int, timestamp: UInt64, ttl: Int, authorizedUUID: String?, resources: TokenResources,
                patterns: TokenResources, meta: JSONValue) {
        self.version = version
        self.timestamp = timestamp
        self.ttl = ttl
        self.authorizedUUID = authorizedUUID
        self.resources = resources
        self.patterns = patterns
        self.meta = meta
    }

    /// The token as JSON: every field, permissions as letters and as bits.
    public var json: JSONValue {
        func grants(_ resources: TokenResources) -> JSONValue {
            func map(_ items: [String: TokenPermissions]) -> JSONValue {
                .object(items.mapValues { ["letters": .string($0.letters), "bits": .int(Int64($0.rawValue))] })
            }
            return ["channels": map(resources.channels), "groups": map(resources.groups), "uuids": map(resources.uuids)]
        }
        return [
            "version": .int(Int64(version)), "timestamp": .int(Int64(timestamp)), "ttl": .int(Int64(ttl)),
            "expiresAt": .int(Int64(expiresAt)), "authorizedUUID": authorizedUUID.map { .string($0) } ?? .null,
            "resources": grants(resources), "patterns": grants(patterns), "meta": meta,
        ]
    }
}

extension PubNodeToken {
    /// The contents of a decoded wire token.
    init(_ token: AccessToken) {
        func convert(_ grants: AccessToken.Grants) -> TokenResources {
            func map(_ items: [String: AccessPermissions]) -> [String: TokenPermissions] {
                items.mapValues { TokenPermissions(rawValue: $0.rawValue) }
            }
            return TokenResources(channels: map(grants.channels), groups: map(grants.groups), uuids: map(grants.uuids))
        }
        let meta = (try? JSONValue(jsonData: Data(token.meta.jsonText().utf8))) ?? .null
        self.init(version: token.version, timestamp: token.issued, ttl: token.ttlMinutes,
                  authorizedUUID: token.authorizedUUID, resources: convert(token.resources),
                  patterns: convert(token.patterns), meta: meta)
    }
}
