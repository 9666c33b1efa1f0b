extension AccessToken {
    /// The longest token text ``decode(_:)`` accepts, in bytes (16 KiB).
    public static let maxTextLength = 16 * 1024

    /// The resource kinds inside `res`/`pat`, in wire order.
    static let kindKeys = ["chan", "grp", "spc", "usr", "uuid"]

    /// The token as sent in `auth`: the CBOR map v, t, ttl, res, pat, meta, [uuid], sig with
    /// byte-string keys at the top level and in res/pat (inner order chan, grp, spc, usr, uuid, all
    /// present; resource names as text, sorted bytewise), base64url **with** `=` padding.
    public func encoded() -> String {
        var entries = unsignedEntries()
        entries.append(CBORPair(Self.key("sig"), .bytes(signature)))
        return Base64.encode(CBORValue.map(entries).encoded(), urlSafe: true, padded: true)
    }

    /// The map entries covered by the signature, in wire order.
    func unsignedEntries() -> [CBORPair] {
        var entries = [
            CBORPair(Self.key("v"), Self.integer(version)),
            CBORPair(Self.key("t"), .unsigned(issued)),
            CBORPair(Self.key("ttl"), Self.integer(ttlMinutes)),
            CBORPair(Self.key("res"), Self.grantsValue(resources)),
            CBORPair(Self.key("pat"), Self.grantsValue(patterns)),
            CBORPair(Self.key("meta"), meta),
        ]
        if let authorizedUUID {
            entries.append(CBORPair(Self.key("uuid"), .text(authorizedUUID)))
        }
        return entries
    }

    static func key(_ name: String) -> CBORValue { .bytes(Array(name.utf8)) }

    static func integer(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(Int64(value))
    }

    static func grantsValue(_ grants: Grants) -> CBORValue {
        func names(_ table: [String: AccessPermissions]) -> CBORValue {
            let sorted = table.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            return .map(sorted.map { CBORPair(.text($0.key), .unsigned(UInt64($0.value.rawValue))) })
        }
        return .map([
            CBORPair(key("chan"), names(grants.channels)),
            CBORPair(key("grp"), names(grants.groups)),
            CBORPair(key("spc"), .map([])),
            CBORPair(key("usr"), .map([])),
            CBORPair(key("uuid"), names(grants.uuids)),
        ])
    }

    /// Parses a token from `auth` text.
    ///
    /// Accepts base64url or standard base64, padded or not, and `%3D` in place of `=`. Requires
    /// v (= 2), t, ttl, res, pat, meta (a map) and sig (bytes); reads an optional uuid; ignores
    /// `cat`, `spc`, `usr` and unknown entries. Keys may be byte or text strings. Every failure is
    /// a typed error; no input traps.
    public static func decode(_ text: String) throws(AccessTokenError) -> AccessToken {
        let utf8 = text.utf8
        guard utf8.count <= maxTextLength else { throw .tooLong }
        guard let bytes = Base64.decode(unescapedPadding(utf8)), !bytes.isEmpty else { throw .invalidBase64 }
        let root: CBORValue
        do {
            root = try CBORValue.decode(bytes)
        } catch {
            throw .invalidCBOR(error)
        }
        guard case .map(let pairs) = root else { throw .notAMap }
        let fields = try keyed(pairs, in: "token")

        func required(_ name: String) throws(AccessTokenError) -> CBORValue {
            guard let value = fields[name] else { throw .missingField(name) }
            return value
        }
        guard case .unsigned(let version) = try required("v") else { throw .invalidField("v") }
        guard version == 2 else { throw .unsupportedVersion(version) }
        guard case .unsigned(let issued) = try required("t") else { throw .invalidField("t") }
        guard case .unsigned(let ttl) = try required("ttl"), ttl <= UInt64(Int32.max) else {
            throw .invalidField("ttl")
        }
        let resources = try grants(try required("res"), in: "res")
        let patterns = try grants(try required("pat"), in: "pat")
        let meta = try required("meta")
        guard case .map = meta else { throw .invalidField("meta") }
        guard case .bytes(let signature) = try required("sig") else { throw .invalidField("sig") }
        var authorizedUUID: String?
        switch fields["uuid"] {
        case nil, .null?: authorizedUUID = nil
        case .text(let uuid)?: authorizedUUID = uuid
        default: throw .invalidField("uuid")
        }

        var token = AccessToken(
            issued: issued, ttlMinutes: Int(ttl), resources: resources, patterns: patterns,
            meta: meta, authorizedUUID: authorizedUUID)
        token.signature = signature
        return token
    }

    /// Replaces `%3D` (any case) with `=`.
    static func unescapedPadding(_ utf8: String.UTF8View) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               iterator[iterator.startIndex] == UInt8(ascii: "3"),
               iterator[iterator.startIndex + 1] | 0x20 == UInt8(ascii: "d") {
                out.append(UInt8(ascii: "="))
                iterator.removeFirst(2)
            } else {
                out.append(byte)
            }
        }
        return out
    }

    /// Indexes map entries by their byte- or text-string key; other keys are ignored.
    static func keyed(_ pairs: [CBORPair], in context: String) throws(AccessTokenError) -> [String: CBORValue] {
        var fields: [String: CBORValue] = [:]
        for pair in pairs {
            let name: String
            switch pair.key {
            case .text(let text): name = text
            case .bytes(let bytes):
                guard let text = String(validating: bytes, as: UTF8.self) else { continue }
                name = text
            default: continue
            }
            guard fields.updateValue(pair.value, forKey: name) == nil else { throw .duplicateKey(context) }
        }
        return fields
    }

    static func grants(_ value: CBORValue, in context: String) throws(AccessTokenError) -> Grants {
        guard case .map(let pairs) = value else { throw .invalidField(context) }
        let kinds = try keyed(pairs, in: context)
        func table(_ kind: String) throws(AccessTokenError) -> [String: AccessPermissions] {
            let where_ = context + "." + kind
            guard let value = kinds[kind] else { return [:] }
            guard case .map(let entries) = value else { throw .invalidField(where_) }
            var result: [String: AccessPermissions] = [:]
            for entry in entries {
                guard case .text(let name) = entry.key,
                      case .unsigned(let bits) = entry.value, bits <= UInt64(UInt32.max)
                else { throw .invalidField(where_) }
                guard result.updateValue(AccessPermissions(rawValue: UInt32(bits)), forKey: name) == nil else {
                    throw .duplicateKey(where_)
                }
            }
            return result
        }
        return Grants(channels: try table("chan"), groups: try table("grp"), uuids: try table("uuid"))
    }
}
