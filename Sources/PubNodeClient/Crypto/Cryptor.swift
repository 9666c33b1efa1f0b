import _CryptoExtras
import Crypto
import Foundation

/// One of the SDKs' cryptors, with its key.
struct Cryptor: Sendable, Equatable {
    /// The algorithm and how it frames its output.
    enum Kind: Sendable, Equatable {
        /// `0000`: AES-256-CBC with the hex digest key, a static IV or a random one prepended, no header.
        case legacy(randomIV: Bool)
        /// `ACRH`: AES-256-CBC with the raw SHA-256 key, a random IV carried in the `PNED` header.
        case aesCbc
    }

    /// The static IV of the legacy cryptor without a random IV.
    static let staticIV: [UInt8] = Array("0123456789012345".utf8)
    /// The id of the legacy cryptor (never written: legacy data has no header).
    static let legacyId = "0000"
    /// The id of the AES-CBC cryptor.
    static let aesCbcId = "ACRH"

    let kind: Kind
    let key: SymmetricKey

    /// A cryptor of `kind` keyed by `cipherKey` as the SDKs derive it.
    init(kind: Kind, cipherKey: String) {
        self.kind = kind
        let digest = Array(SHA256.hash(data: Data(cipherKey.utf8)))
        switch kind {
        case .legacy:
            // The first 32 lowercase hex digits of the digest, used as 32 ASCII bytes.
            let hex = digest.map { String(format: "%02x", $0) }.joined()
            key = SymmetricKey(data: Data(hex.utf8.prefix(32)))
        case .aesCbc:
            key = SymmetricKey(data: digest)
        }
    }

    var id: String {
        if case .legacy = kind { return Self.legacyId }
        return Self.aesCbcId
    }

    static func == (lhs: Cryptor, rhs: Cryptor) -> Bool {
        lhs.kind == rhs.kind && lhs.key == rhs.key
    }

    /// Encrypts `plain`: the ciphertext (with the IV prepended for a random-IV legacy cryptor)
    /// and the cryptor data for the header (the IV for `ACRH`, nothing for legacy).
    func encrypt(_ plain: [UInt8], iv random: [UInt8]) throws(PubNodeClientError) -> (data: [UInt8], cryptorData: [UInt8]) {
        switch kind {
        case .legacy(let randomIV):
            let iv = randomIV ? random : Self.staticIV
            let cipher = try Self.cbc(encrypt: true, plain, key: key, iv: iv)
            return (randomIV ? iv + cipher : cipher, [])
        case .aesCbc:
            return (try Self.cbc(encrypt: true, plain, key: key, iv: random), random)
        }
    }

    /// Decrypts `data` (what follows the header) with the header's `cryptorData`.
    func decrypt(_ data: [UInt8], cryptorData: [UInt8]) throws(PubNodeClientError) -> [UInt8] {
        switch kind {
        case .legacy(let randomIV):
            guard randomIV else { return try Self.cbc(encrypt: false, data, key: key, iv: Self.staticIV) }
            guard data.count > 16 else { throw .crypto("decryption error: data too short") }
            return try Self.cbc(encrypt: false, Array(data[16...]), key: key, iv: Array(data[0..<16]))
        case .aesCbc:
            return try Self.cbc(encrypt: false, data, key: key, iv: cryptorData)
        }
    }

    /// AES-256-CBC with PKCS#7 padding.
    private static func cbc(encrypt: Bool, _ input: [UInt8], key: SymmetricKey, iv: [UInt8]) throws(PubNodeClientError) -> [UInt8] {
        guard iv.count == 16 else { throw .crypto("decryption error: the IV must be 16 bytes") }
        if !encrypt {
            guard !input.isEmpty, input.count % 16 == 0 else {
                throw .crypto("decryption error: the ciphertext is not a whole number of blocks")
            }
        }
        do {
            let vector = try AES._CBC.IV(ivBytes: iv)
            return encrypt ? Array(try AES._CBC.encrypt(input, using: key, iv: vector))
                : Array(try AES._CBC.decrypt(input, using: key, iv: vector))
        } catch {
            throw .crypto(encrypt ? "encryption error: \(error)" : "decryption error: wrong key or damaged data")
        }
    }
}
