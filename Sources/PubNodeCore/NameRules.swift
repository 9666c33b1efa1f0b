/// Validation of channel, wildcard and channel-group names.
///
/// A name is 1 to `maxLength` UTF-8 bytes and contains none of `,` `:` `*` `/` `\` nor a control
/// character. A wildcard subscription is `a.*` or `a.b.*`: at most two dots, ending in `.*`, with
/// valid tokens before it. Names ending in `-pnpres` are presence channels.
public enum NameRules {
    /// The longest channel or group name accepted, in UTF-8 bytes.
    public static let maxLength = 2048

    /// Why a name was refused.
    public enum Violation: Error, Equatable, Sendable {
        /// The name is empty.
        case empty
        /// The name is longer than `maxLength` bytes.
        case tooLong
        /// The name contains a reserved or control character.
        case forbiddenCharacter
        /// The name is a wildcard where a concrete channel is required, or a malformed wildcard.
        case badWildcard
        /// The name contains `-pnpres`, which names presence channels: only the node publishes there.
        case reservedForPresence
    }

    /// Checks a concrete channel name (publish targets, group members).
    public static func validateChannel(_ name: String) throws(Violation) {
        try validateToken(name.utf8)
    }

    /// Checks a name that clients may publish to or put in a group: a valid channel name that is
    /// not, and does not contain, a presence name (SDKs treat any channel containing `-pnpres` as
    /// presence and would choke on a forged event).
    public static func validateWritable(_ name: String) throws(Violation) {
        try validateToken(name.utf8)
        if containsPresenceMarker(name) { throw .reservedForPresence }
    }

    /// Whether `-pnpres` occurs anywhere in `name`: a plain byte scan (this runs on every publish).
    static func containsPresenceMarker(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            let marker: StaticString = "-pnpres"
            let count = marker.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            let start = marker.utf8Start
            for index in 0...(bytes.count - count) where bytes[index] == start[0] {
                var same = true
                for offset in 1..<count where bytes[index + offset] != start[offset] {
                    same = false
                    break
                }
                if same { return true }
            }
            return false
        }
    }

    /// Checks a channel-group name.
    public static func validateGroup(_ name: String) throws(Violation) {
        try validateToken(name.utf8)
    }

    /// The suffix naming a channel's (or group's, or wildcard's) presence channel.
    public static let presenceSuffix = "-pnpres"

    /// True when the name is a wildcard subscription (`….*`, or its presence form `….*-pnpres`).
    public static func isWildcard(_ name: String) -> Bool {
        endsWith(name, "*") || endsWith(name, "*-pnpres")
    }

    /// The name without its `-pnpres` suffix, or nil when it has none.
    public static func presenceBase(_ name: String) -> String? {
        let suffixCount = presenceSuffix.utf8.count
        guard name.utf8.count > suffixCount, endsWith(name, "-pnpres") else { return nil }
        return String(decoding: name.utf8.dropLast(suffixCount), as: UTF8.self)
    }

    /// Whether `name`'s bytes end with `suffix`'s: names are matched as bytes, as PubNub matches
    /// them (and without `hasSuffix`'s grapheme breaking, on every publish and poll).
    private static func endsWith(_ name: String, _ suffix: StaticString) -> Bool {
        suffix.withUTF8Buffer { wanted in
            // A native string's bytes in place (a small one's copied to the stack): indexed
            // directly, rather than through the UTF-8 view's generic suffix and comparison.
            var name = name
            return name.withUTF8 { bytes in
                guard bytes.count >= wanted.count else { return false }
                let start = bytes.count - wanted.count
                for offset in 0..<wanted.count where bytes[start + offset] != wanted[offset] { return false }
                return true
            }
        }
    }

    /// Checks a wildcard subscription, plain (`a.*`) or presence (`a.*-pnpres`); returns its prefix.
    public static func wildcardPatternPrefix(_ name: String) throws(Violation) -> String {
        try wildcardPrefix(presenceBase(name) ?? name)
    }

    /// The wildcard patterns that match a concrete channel: `a.b.c` → `["a.*", "a.b.*"]`, and for
    /// its presence channel `a.b.c-pnpres` → `["a.*-pnpres", "a.b.*-pnpres"]`.
    public static func wildcardPatterns(matching channel: String) -> [String] {
        if let base = presenceBase(channel) {
            return wildcardPrefixes(of: base).map { $0 + "*" + presenceSuffix }
        }
        return wildcardPrefixes(of: channel).map { $0 + "*" }
    }

    /// Checks a wildcard subscription and returns its prefix including the final dot (`a.` for `a.*`).
    public static func wildcardPrefix(_ name: String) throws(Violation) -> String {
        let bytes = Array(name.utf8)
        guard bytes.count >= 3, bytes.count <= maxLength,
              bytes[bytes.count - 1] == UInt8(ascii: "*"), bytes[bytes.count - 2] == UInt8(ascii: ".")
        else { throw .badWildcard }
        let prefix = bytes[0..<(bytes.count - 2)]
        let dots = prefix.filter { $0 == UInt8(ascii: ".") }.count
        guard dots <= 1 else { throw .badWildcard }
        for token in prefix.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !token.isEmpty else { throw .badWildcard }
        }
        try validateToken(prefix)
        return String(decoding: bytes[0..<(bytes.count - 1)], as: UTF8.self)
    }

    /// The wildcard prefixes a concrete channel is matched by: `a.b.c` → `["a.", "a.b."]`.
    ///
    /// Wildcards have at most two dots, so a channel has at most two prefixes; publish looks them up
    /// directly instead of scanning subscriptions.
    public static func wildcardPrefixes(of channel: String) -> [String] {
        var result: [String] = []
        var index = channel.utf8.startIndex
        while index != channel.utf8.endIndex, result.count < 2 {
            if channel.utf8[index] == UInt8(ascii: ".") {
                let end = channel.utf8.index(after: index)
                if end != channel.utf8.endIndex {
                    result.append(String(channel[..<end]))
                }
            }
            index = channel.utf8.index(after: index)
        }
        return result
    }

    private static func validateToken<C: Collection>(_ bytes: C) throws(Violation) where C.Element == UInt8 {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maxLength else { throw .tooLong }
        for byte in bytes {
            switch byte {
            case 0..<0x20, 0x7F, UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "*"),
                 UInt8(ascii: "/"), UInt8(ascii: "\\"):
                throw .forbiddenCharacter
            default:
                continue
            }
        }
    }
}
