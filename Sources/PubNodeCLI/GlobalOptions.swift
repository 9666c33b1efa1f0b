import ArgumentParser
import Foundation
import PubNodeClient

/// Options every command takes: where the node is, which keyset, who we are, and how to print.
///
/// Each connection option falls back to an environment variable, then to the local node's
/// embedded default (`127.0.0.1:8090`, keys `demo`/`demo`).
public struct GlobalOptions: ParsableArguments {
    /// The default origin: the local node's default address.
    public static let defaultOrigin = "127.0.0.1:8090"
    /// The default publish and subscribe key: the node's embedded demo keyset.
    public static let defaultKey = "demo"

    /// Host and port of the node.
    @Option(help: ArgumentHelp("Host and port of the node (env PUBNODE_ORIGIN, default 127.0.0.1:8090).",
                               valueName: "host:port"))
    public var origin: String?

    /// The publish key.
    @Option(name: .customLong("pub-key"), help: ArgumentHelp("Publish key (env PUBNODE_PUB_KEY, default demo).", valueName: "key"))
    public var pubKey: String?

    /// The subscribe key.
    @Option(name: .customLong("sub-key"), help: ArgumentHelp("Subscribe key (env PUBNODE_SUB_KEY, default demo).", valueName: "key"))
    public var subKey: String?

    /// The user id sent as `uuid`.
    @Option(help: ArgumentHelp("Your user id (env PUBNODE_UUID, default pubnode-cli-<random>).", valueName: "id"))
    public var uuid: String?

    /// The access token sent as `auth`.
    @Option(help: ArgumentHelp("Access token sent as auth (env PUBNODE_AUTH).", valueName: "token"))
    public var auth: String?

    /// The keyset's secret key: every request is signed, and tokens may be granted and revoked.
    @Option(name: .customLong("secret-key"),
            help: ArgumentHelp("Secret key: sign every request; needed by token grant/revoke (env PUBNODE_SECRET_KEY).",
                               valueName: "key"))
    public var secretKey: String?

    /// Whether to use https.
    @Flag(help: "Use https (env PUBNODE_SECURE=1).")
    public var secure = false

    /// Request timeout in seconds.
    @Option(help: ArgumentHelp("Seconds to wait for an answer (default 10).", valueName: "seconds"))
    public var timeout: Double?

    /// Print JSON instead of text.
    @Flag(help: "Print JSON (one object per line for streams) instead of text.")
    public var json = false

    /// Never colour the output.
    @Flag(name: .customLong("no-color"), help: "Never colour the output (also NO_COLOR=1).")
    public var noColor = false

    /// Creates the options (ArgumentParser fills them in).
    public init() {}

    /// Checks the values given on the command line.
    public func validate() throws {
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be greater than 0") }
    }

    /// The client configuration from the flags, then `environment`, then the defaults.
    public func configuration(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> PubNodeConfiguration {
        func pick(_ flag: String?, _ variable: String) -> String? {
            if let flag { return flag }
            if let value = environment[variable], !value.isEmpty { return value }
            return nil
        }
        var origin = pick(self.origin, "PUBNODE_ORIGIN") ?? Self.defaultOrigin
        var secure = self.secure
        if !secure, let text = environment["PUBNODE_SECURE"], !text.isEmpty {
            switch text.lowercased() {
            case "1", "true", "yes", "on": secure = true
            case "0", "false", "no", "off": secure = false
            default: throw CLIError("PUBNODE_SECURE must be 1 or 0 (got '\(text)')", isUsage: true)
            }
        }
        for scheme in ["https://", "http://"] where origin.lowercased().hasPrefix(scheme) {
            if scheme == "https://" { secure = true }
            origin = String(origin.dropFirst(scheme.count))
        }
        while origin.hasSuffix("/") { origin.removeLast() }
        guard !origin.isEmpty, !origin.contains("/") else {
            throw CLIError("the origin must be host:port (got '\(origin)')", isUsage: true)
        }
        return PubNodeConfiguration(
            publishKey: pick(pubKey, "PUBNODE_PUB_KEY") ?? Self.defaultKey,
            subscribeKey: pick(subKey, "PUBNODE_SUB_KEY") ?? Self.defaultKey,
            userId: pick(uuid, "PUBNODE_UUID") ?? Self.randomUserId(),
            origin: origin, secure: secure, requestTimeout: timeout ?? 10,
            authToken: pick(auth, "PUBNODE_AUTH"), secretKey: pick(secretKey, "PUBNODE_SECRET_KEY"))
    }

    /// Whether standard output gets colour.
    func colorEnabled(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        !noColor && Terminal.colorEnabled(fileDescriptor: 1, environment: environment)
    }

    /// The formatter for standard output.
    func formatter() -> OutputFormatter {
        OutputFormatter(style: Style(enabled: colorEnabled()))
    }

    /// `pubnode-cli-` and eight random hexadecimal digits.
    static func randomUserId() -> String {
        "pubnode-cli-" + String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8)
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
