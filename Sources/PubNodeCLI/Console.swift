import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered line output to a file descriptor, so piped readers see every line at once.
public struct Console: Sendable {
    /// The file descriptor written to.
    public let fileDescriptor: Int32

    /// Standard output.
    public static let standardOutput = Console(fileDescriptor: 1)
    /// Standard error.
    public static let standardError = Console(fileDescriptor: 2)

    /// Descriptors whose reader has gone (a write failed with EPIPE).
    static let closed = Mutex<Set<Int32>>([])

    /// True once a write failed because nobody reads the other end any more.
    public var isClosed: Bool { Console.closed.withLock { $0.contains(fileDescriptor) } }

    /// Writes `text`, adding a newline when it does not end with one.
    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { _ = Console.closed.withLock { $0.insert(fileDescriptor) } }
                    return
                }
                offset += written
            }
        }
    }
}

/// What `pubnode-cli` knows about its terminal.
public enum Terminal {
    /// Whether `fileDescriptor` is a terminal.
    public static func isTerminal(_ fileDescriptor: Int32) -> Bool {
        isatty(fileDescriptor) != 0
    }

    /// Whether colour is wanted on `fileDescriptor`: only on a terminal, and never when `NO_COLOR`
    /// is set to a non-empty value (https://no-color.org).
    public static func colorEnabled(fileDescriptor: Int32,
                                    environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        colorEnabled(isTerminal: isTerminal(fileDescriptor), environment: environment)
    }

    /// Whether colour is wanted for output that `isTerminal` or not, given `environment`.
    public static func colorEnabled(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return true
    }
}

/// ANSI colouring that does nothing when disabled.
public struct Style: Sendable {
    /// Whether escape sequences are emitted.
    public var enabled: Bool

    /// A style; `enabled: false` returns every text unchanged.
    public init(enabled: Bool) { self.enabled = enabled }

    private func paint(_ code: String, _ text: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Dim text (times, timetokens).
    public func dim(_ text: String) -> String { paint("2", text) }
    /// Bold text.
    public func bold(_ text: String) -> String { paint("1", text) }
    /// Cyan text (channels).
    public func cyan(_ text: String) -> String { paint("36", text) }
    /// Green text (publishers, joins).
    public func green(_ text: String) -> String { paint("32", text) }
    /// Yellow text (signals, state changes).
    public func yellow(_ text: String) -> String { paint("33", text) }
    /// Red text (errors, leaves).
    public func red(_ text: String) -> String { paint("31", text) }
}
