import Foundation
import PubNodeClient

/// A failure `pubnode-cli` reports on standard error as `error: …`.
public struct CLIError: Error, Equatable, CustomStringConvertible {
    /// The text after `error: `.
    public var message: String
    /// Whether it is a usage error (exit status 2) rather than a server or network one (1).
    public var isUsage: Bool

    /// A failure with `message`; `isUsage` selects exit status 2 instead of 1.
    public init(_ message: String, isUsage: Bool = false) {
        self.message = message
        self.isUsage = isUsage
    }

    /// The report of a client error: `400 Invalid Key` for a refusal, `cannot reach …` for a network failure.
    public init(_ error: PubNodeClientError, origin: String) {
        switch error {
        case .server(let status, let text):
            self.init("\(status) \(text)")
        case .accessDenied(let denial):
            self.init("403 \(denial)")
        case .rateLimited(let retryAfter, let text):
            self.init("429 \(text)" + (retryAfter.map { " (retry after \(Int($0)) s)" } ?? ""))
        case .transport(let text):
            self.init("cannot reach \(origin): \(CLIError.shorten(text))")
        case .invalidArgument(let text):
            self.init(text, isUsage: true)
        case .decoding(let text), .encoding(let text), .crypto(let text):
            self.init(text)
        case .cancelled:
            self.init("cancelled")
        }
    }

    /// The readable part of a Foundation error description: the quoted message of
    /// `Error Domain=… Code=… "message" UserInfo={…}`, otherwise the text itself.
    static func shorten(_ text: String) -> String {
        guard text.hasPrefix("Error Domain="), let open = text.range(of: "\""),
              let close = text[open.upperBound...].range(of: "\"") else { return text }
        let message = String(text[open.upperBound..<close.lowerBound])
        // Foundation on Linux often has no message for connection errors; its code still says what.
        guard message.isEmpty || message == "(null)" else { return message }
        let code = text.range(of: "Code=").map { text[$0.upperBound...].prefix { $0 == "-" || $0.isNumber } }.map(String.init)
        switch code {
        case "-1004": return "connection refused"
        case "-1001": return "timed out"
        case "-1003": return "host not found"
        case "-1005": return "connection lost"
        default: return "the connection failed" + (code.map { " (URL error \($0))" } ?? "")
        }
    }

    /// A one-line description.
    public var description: String { message }
}

/// Runs `body`, turning a `PubNodeClientError` into a `CLIError` naming `origin`.
func reporting<T>(_ origin: String, _ body: () async throws(PubNodeClientError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw CLIError(error, origin: origin)
    }
}

extension GlobalOptions {
    /// Runs `body` with a client configured from these options; its errors become `CLIError`s
    /// naming the origin.
    func request<T>(_ body: (PubNodeClient) async throws(PubNodeClientError) -> T) async throws -> T {
        let configuration = try configuration()
        let client = PubNodeClient(configuration: configuration)
        return try await reporting(configuration.origin) { () async throws(PubNodeClientError) in try await body(client) }
    }
}
