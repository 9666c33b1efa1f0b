import ArgumentParser
import Foundation
import PubNodeClient

/// `--cipher-key` and its companions: message encryption compatible with the PubNub SDKs.
public struct CryptoOptions: ParsableArguments {
    /// The cipher key; nil sends and reads payloads as they are.
    @Option(name: .customLong("cipher-key"),
            help: ArgumentHelp("Encrypt published and decrypt received messages with this key (env PUBNODE_CIPHER_KEY).",
                               valueName: "key"))
    public var cipherKey: String?

    /// Encrypt with the legacy cryptor instead of AES-CBC with a header.
    @Flag(name: .customLong("legacy-crypto"),
          help: "Encrypt with the legacy cryptor (no header) instead of AES-CBC (ACRH); both are always decrypted.")
    public var legacy = false

    /// The legacy cryptor's static IV instead of a random one.
    @Flag(name: .customLong("static-iv"), help: "Legacy cryptor only: use the static IV instead of a random one.")
    public var staticIV = false

    /// Creates the options (ArgumentParser fills them in).
    public init() {}

    /// The crypto module these options describe, or nil without a key (flag, then environment).
    public func module(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CryptoModule? {
        var key = cipherKey
        if key == nil, let value = environment["PUBNODE_CIPHER_KEY"], !value.isEmpty { key = value }
        guard let key else {
            if legacy || staticIV { throw CLIError("--legacy-crypto and --static-iv need a cipher key", isUsage: true) }
            return nil
        }
        guard !key.isEmpty else { throw CLIError("--cipher-key must not be empty", isUsage: true) }
        return legacy ? .legacyCryptoModule(with: key, withRandomIV: !staticIV)
            : .aesCbcCryptoModule(with: key, withRandomIV: !staticIV)
    }
}

extension GlobalOptions {
    /// The client configuration with the crypto module of `crypto`.
    func configuration(crypto: CryptoOptions) throws -> PubNodeConfiguration {
        var configuration = try configuration()
        configuration.cryptoModule = try crypto.module()
        return configuration
    }

    /// `request(_:)` with the crypto module of `crypto`.
    func request<T>(crypto: CryptoOptions, _ body: (PubNodeClient) async throws(PubNodeClientError) -> T) async throws -> T {
        let configuration = try configuration(crypto: crypto)
        let client = PubNodeClient(configuration: configuration)
        return try await reporting(configuration.origin) { () async throws(PubNodeClientError) in try await body(client) }
    }
}
