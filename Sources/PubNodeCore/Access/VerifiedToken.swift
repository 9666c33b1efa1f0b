import PubNodeAccessWire
import Synchronization

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
    private let exactChannels: [String: AccessPermissions]
    private let exactGroups: [String: AccessPermissions]
    private let exactUUIDs: [String: AccessPermissions]
    private let channelPatterns: [CompiledPattern]
    private let groupPatterns: [CompiledPattern]
    private let uuidPatterns: [CompiledPattern]
    /// Pattern verdicts already reached, so a client that keeps using one token on the same
    /// channels pays for matching once (bounded; emptied when full).
    private let verdicts = Mutex<[Verdict: Bool]>([:])
    private static let maxVerdicts = 512

    /// A pattern and what it grants.
    private struct CompiledPattern: Sendable {
        let pattern: ResourcePattern
        let permissions: AccessPermissions
    }

    /// One question asked of the patterns.
    private struct Verdict: Hashable, Sendable {
        let kind: AccessRequest.ResourceKind
        let permission: AccessRequest.Permission
        let name: String
    }

    /// Compiles `token`; throws when a pattern cannot be compiled (a token we did not issue).
    init(_ token: AccessToken, subscribeKey: String, generation: UInt64) throws(ResourcePatternError) {
        id = Hex.encode(token.signature)
        self.subscribeKey = subscribeKey
        self.generation = generation
        expiresAt = token.expiresAt
        authorizedUUID = token.authorizedUUID
        exactChannels = token.resources.channels
        exactGroups = token.resources.groups
        exactUUIDs = token.resources.uuids
        channelPatterns = try Self.compile(token.patterns.channels)
        groupPatterns = try Self.compile(token.patterns.groups)
        uuidPatterns = try Self.compile(token.patterns.uuids)
    }

    private static func compile(_ grants: [String: AccessPermissions]) throws(ResourcePatternError) -> [CompiledPattern] {
        var list: [CompiledPattern] = []
        for (source, permissions) in grants.sorted(by: { $0.key < $1.key }) {
            list.append(CompiledPattern(pattern: try ResourcePattern(source), permissions: permissions))
        }
        return list
    }

    /// Whether the token grants `permission` on the resource, by exact name or by pattern. A
    /// group pattern is also tried against `:name`, the form PubNub writes groups in internally.
    /// Each pattern tried costs its program size times the name's length from `budget`; once the
    /// budget is spent nothing more is matched (the caller refuses the request).
    func allows(_ resource: AccessRequest.Resource, budget: inout Int) -> Bool {
        let needed = AccessPermissions(resource.permission)
        let (exact, patterns) = switch resource.kind {
        case .channel: (exactChannels, channelPatterns)
        case .group: (exactGroups, groupPatterns)
        case .uuid: (exactUUIDs, uuidPatterns)
        }
        if let granted = exact[resource.name], granted.contains(needed) { return true }
        guard !patterns.isEmpty else { return false }
        let question = Verdict(kind: resource.kind, permission: resource.permission, name: resource.name)
        if let known = verdicts.withLock({ $0[question] }) { return known }
        let length = resource.name.unicodeScalars.count + 2
        var verdict = false
        for compiled in patterns where compiled.permissions.contains(needed) {
            budget -= compiled.pattern.cost * length * (resource.kind == .group ? 2 : 1)
            guard budget >= 0 else { return false }
            if compiled.pattern.matches(resource.name)
                || (resource.kind == .group && compiled.pattern.matches(":" + resource.name)) {
                verdict = true
                break
            }
        }
        verdicts.withLock { verdicts in
            if verdicts.count >= Self.maxVerdicts { verdicts.removeAll(keepingCapacity: true) }
            verdicts[question] = verdict
        }
        return verdict
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
