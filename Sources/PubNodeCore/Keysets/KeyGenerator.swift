/// Makes and checks keys for keysets created at run time.
enum KeyGenerator {
    /// `prefix` and 32 random hex digits (128 bits from the system's secure generator).
    static func key(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + Hex.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether `key` may name a keyset: 1 to 64 ASCII letters, digits, `-` or `_` (it appears in
    /// URL paths and the access store).
    static func isValid(_ key: String) -> Bool {
        let bytes = key.utf8
        return (1...64).contains(bytes.count) && bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
