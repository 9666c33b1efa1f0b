import Foundation

/// Encrypts and decrypts message payloads byte-compatibly with the PubNub SDKs' crypto module.
///
/// A module encrypts with its default cryptor and decrypts both: data with a `PNED` header goes to
/// the cryptor it names, data without one to the legacy cryptor.
public struct CryptoModule: Sendable, Equatable, CustomStringConvertible {
    let encryptor: Cryptor
    let legacy: Cryptor
    let aesCbc: Cryptor
    /// Produces the 16 random IV bytes of each encryption.
    let randomIV: @Sendable () -> [UInt8]

    init(encryptor: Cryptor, legacy: Cryptor, aesCbc: Cryptor,
         randomIV: @escaping @Sendable () -> [UInt8] = CryptoModule.systemRandomIV) {
        self.encryptor = encryptor
        self.legacy = legacy
        self.aesCbc = aesCbc
        self.randomIV = randomIV
    }

    /// Encrypts with the AES-CBC cryptor (`ACRH`, `PNED` header, random IV); decrypts both forms.
    /// `withRandomIV` applies to the legacy data it decrypts.
    public static func aesCbcCryptoModule(with cipherKey: String, withRandomIV: Bool = true) -> CryptoModule {
        let aesCbc = Cryptor(kind: .aesCbc, cipherKey: cipherKey)
        return CryptoModule(encryptor: aesCbc, legacy: Cryptor(kind: .legacy(randomIV: withRandomIV), cipherKey: cipherKey),
                            aesCbc: aesCbc)
    }

    /// Encrypts with the legacy cryptor (no header; a random IV prepended, or the static IV when
    /// `withRandomIV` is false); decrypts both forms.
    public static func legacyCryptoModule(with cipherKey: String, withRandomIV: Bool = true) -> CryptoModule {
        let legacy = Cryptor(kind: .legacy(randomIV: withRandomIV), cipherKey: cipherKey)
        return CryptoModule(encryptor: legacy, legacy: legacy, aesCbc: Cryptor(kind: .aesCbc, cipherKey: cipherKey))
    }

    /// A copy whose random IVs come from `source` (for reproducible output).
    func withIVSource(_ source: @escaping @Sendable () -> [UInt8]) -> CryptoModule {
        CryptoModule(encryptor: encryptor, legacy: legacy, aesCbc: aesCbc, randomIV: source)
    }

    static func systemRandomIV() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Modules are equal when they encrypt the same way with the same key.
    public static func == (lhs: CryptoModule, rhs: CryptoModule) -> Bool {
        lhs.encryptor == rhs.encryptor && lhs.legacy == rhs.legacy
    }

    /// The default cryptor's name, never the key.
    public var description: String {
        switch encryptor.kind {
        case .aesCbc: return "CryptoModule(ACRH)"
        case .legacy(let random): return "CryptoModule(legacy, randomIV: \(random))"
        }
    }

    /// Encrypts `data`: the default cryptor's header (none for legacy) followed by the ciphertext.
    public func encrypt(data: Data) throws(PubNodeClientError) -> Data {
        guard !data.isEmpty else { throw .crypto("encryption error: nothing to encrypt") }
        let iv = randomIV()
        let (cipher, cryptorData) = try encryptor.encrypt(Array(data), iv: iv)
        guard case .aesCbc = encryptor.kind else { return Data(cipher) }
        return Data(try CryptorHeader.encode(cryptorId: encryptor.id, cryptorData: cryptorData) + cipher)
    }

    /// Decrypts `data` made by either cryptor; throws for a wrong key, damaged data or an unknown cryptor.
    public func decrypt(data: Data) throws(PubNodeClientError) -> Data {
        let bytes = Array(data)
        let header = try CryptorHeader.decode(bytes)
        let body = header.map { Array(bytes[$0.length...]) } ?? bytes
        guard !body.isEmpty else { throw .crypto("decryption error: no data") }
        let cryptor: Cryptor
        switch header?.cryptorId {
        case nil: cryptor = legacy
        case Cryptor.aesCbcId?: cryptor = aesCbc
        case let other?: throw .crypto("unknown cryptor error: \(other)")
        }
        return Data(try cryptor.decrypt(body, cryptorData: header?.cryptorData ?? []))
    }

    /// The base64 text of `plaintext` encrypted: what a publish sends as the payload string.
    public func encrypt(string plaintext: String) throws(PubNodeClientError) -> String {
        try encrypt(data: Data(plaintext.utf8)).base64EncodedString()
    }

    /// The text encrypted in base64 `text`.
    public func decrypt(base64 text: String) throws(PubNodeClientError) -> String {
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw .crypto("decryption error: not base64")
        }
        guard let plain = String(data: try decrypt(data: data), encoding: .utf8) else {
            throw .crypto("decryption error: the plaintext is not UTF-8")
        }
        return plain
    }
}
