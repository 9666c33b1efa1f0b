import ArgumentParser
import NIOCore

/// Options shared by every scenario.
struct CommonOptions: ParsableArguments {
    /// Server address; only loopback addresses are accepted.
    @Option(help: "Server address (loopback only: 127.x.x.x, localhost or ::1).")
    var host: String = "127.0.0.1"

    /// Server TCP port.
    @Option(help: "Server port.")
    var port: Int = 8080

    /// URL shapes to use.
    @Option(help: "URL shapes to use: pubnode or nchan.")
    var target: ServerTarget = .pubnode

    /// Further ports of servers on the same host (a cluster's other nodes).
    @Option(help: ArgumentHelp(
        "Another server port on the same host, e.g. a cluster's other node; repeat for several.",
        discussion: "Connections are spread round-robin over --port and these; a single publisher uses --port."))
    var extraPort: [Int] = []

    /// Whether to print a machine-readable result line after the summary.
    @Flag(help: "Also print one JSON result object (single line) at the end.")
    var json = false

    /// Publish key in PubNode URLs.
    @Option(help: "PubNode publish key.")
    var publishKey = "demo"

    /// Subscribe key in PubNode URLs.
    @Option(help: "PubNode subscribe key.")
    var subscribeKey = "demo"

    /// Access Manager token sent as `auth=` on every PubNode request.
    @Option(help: "Access Manager token sent as auth= on every PubNode request.")
    var auth: String?

    /// Number of event loop threads the client uses.
    @Option(help: "Client event loop threads (default: number of cores).")
    var threads: Int = System.coreCountForLoad

    /// Rejects non-loopback hosts and nonsensical numbers.
    mutating func validate() throws {
        guard Self.isLoopback(host) else {
            throw ValidationError("refusing non-loopback host '\(host)'; use 127.x.x.x, localhost or ::1")
        }
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535") }
        guard extraPort.count <= 64, extraPort.allSatisfy({ (1...65535).contains($0) }) else {
            throw ValidationError("--extra-port must be 1...65535, at most 64 times")
        }
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be 1...64") }
    }

    /// True for `localhost`, `::1` (optionally bracketed) and dotted-quad addresses in 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "[::1]" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isNumber), let value = Int(part) else {
                return false
            }
            return value <= 255
        }
    }

    /// Every server port: `--port` first, then each `--extra-port`.
    var ports: [Int] { [port] + extraPort }

    /// The address to connect to: `localhost` becomes 127.0.0.1 so no resolver is involved.
    var connectHost: String {
        switch host.lowercased() {
        case "localhost": return "127.0.0.1"
        case "[::1]": return "::1"
        default: return host
        }
    }

    /// The request builder for these options.
    var requestFactory: RequestFactory {
        RequestFactory(target: target, hostHeader: hostHeader, publishKey: publishKey, subscribeKey: subscribeKey,
                       authQuery: auth.map { "&auth=" + Self.queryValue($0) } ?? "")
    }

    /// A token as the official SDKs send it: raw when it holds only URL-safe characters
    /// (base64url and its `=` padding), percent-encoded otherwise.
    static func queryValue(_ token: String) -> String {
        let safe = token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "=")
        }
        return safe ? token : PercentEncoding.encode(token)
    }

    /// Value for the HTTP `Host` header.
    var hostHeader: String {
        connectHost.contains(":") ? "[\(connectHost)]:\(port)" : "\(connectHost):\(port)"
    }
}
