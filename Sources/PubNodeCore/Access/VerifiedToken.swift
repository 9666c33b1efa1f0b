import PubNodeAccessWire

/// An Access Manager token after its signature was checked: its grants ready to answer "may this
/// caller do that?" — exact names in dictionaries, patterns compiled once.
final class VerifiedToken: Sendable {
    /// The token's identity (its signature in hex), the key of revocations.
    let id: String
    /// The keyset whose secret signed it.
    let subscribeKey: String
    /// The generation of the keyset's secret it was verified under.
    let generation: UInt64
    /// Unix seconds when it expires.
    let expiresAt: UInt64
    /// The only uuid allowed to use it, if any.
    let authorizedUUID: String?
    private let exact: [AccessRequest.ResourceKind: [String: AccessPermissions]]
    private let patterns: [AccessRequest.ResourceKind: [(ResourcePattern, AccessPermissions)]]

    /// Compiles `token`; throws when a pattern cannot be compiled (a token we did not issue).
    init(_ token: AccessToken, subscribeKey: String, generation: UInt64) throws(ResourcePatternError) {
        id = Self.hex(token.signature)
        self.subscribeKey = subscribeKey
        self.generation = generation
        expiresAt = token.expiresAt
        authorizedUUID = token.authorizedUUID
        exact = [.channel: token.resources.channels, .group: token.resources.groups, .uuid: token.resources.uuids]
        var compiled: [AccessRequest.ResourceKind: [(ResourcePattern, AccessPermissions)]] = [:]
        for (kind, grants) in [(AccessRequest.ResourceKind.channel, token.patterns.channels),
                               (.group, token.patterns.groups), (.uuid, token.patterns.uuids)] {
            var list: [(ResourcePattern, AccessPermissions)] = []
            for (source, permissions) in grants.sorted(by: { $0.key < $1.key }) {
                list.append((try ResourcePattern(source), permissions))
            }
            compiled[kind] = list
        }
        patterns = compiled
    }

    /// Whether the token grants `permission` on the resource, by exact name or by pattern. A
    /// group pattern is also tried against `:name`, the form PubNub writes groups in internally.
    /// Each pattern tried costs its program size times the name's length from `budget`; once the
    /// budget is spent nothing more is matched (the caller refuses the request).
    func allows(_ resource: AccessRequest.Resource, budget: inout Int) -> Bool {
        let needed = AccessPermissions(resource.permission)
        if let granted = exact[resource.kind]?[resource.name], granted.contains(needed) { return true }
        let length = resource.name.unicodeScalars.count + 2
        for (pattern, granted) in patterns[resource.kind] ?? [] where granted.contains(needed) {
            budget -= pattern.cost * length * (resource.kind == .group ? 2 : 1)
            guard budget >= 0 else { return false }
            if pattern.matches(resource.name) { return true }
            if resource.kind == .group, pattern.matches(":" + resource.name) { return true }
        }
        return false
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension AccessPermissions {
    /// The Access Manager bit of a permission an operation needs.
    init(_ permission: AccessRequest.Permission) {
        switch permission {
        case .read: self = .read
        case .write: self = .write
        case .manage: self = .manage
        case .delete: self = .delete
        case .get: self = .get
        case .update: self = .update
        case .join: self = .join
        }
    }
}
