import ArgumentParser
import Foundation
import PubNodeClient

/// Turns command-line and standard-input text into message payloads.
public enum MessageInput {
    /// `text` as JSON when it parses as JSON, otherwise as a JSON string (`asString` forces a string).
    ///
    /// `hello` becomes `"hello"`, `42` the number 42 and `{"a":1}` an object.
    public static func payload(_ text: String, asString: Bool = false) -> JSONValue {
        if asString { return .string(text) }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let value = try? JSONValue(jsonData: Data(trimmed.utf8)) else { return .string(text) }
        return value
    }

    /// `text` parsed as JSON, or a usage error naming `option`.
    public static func json(_ text: String, option: String) throws -> JSONValue {
        do {
            return try JSONValue(jsonData: Data(text.utf8))
        } catch {
            throw ValidationError("\(option) is not valid JSON: \(text)")
        }
    }

    /// `text` parsed as a JSON object, or a usage error naming `option`.
    public static func object(_ text: String, option: String) throws -> JSONValue {
        let value = try json(text, option: option)
        guard value.objectValue != nil else { throw ValidationError("\(option) must be a JSON object: \(text)") }
        return value
    }

    /// The message to send: `argument` if given, otherwise all of standard input without its final newline.
    ///
    /// Refuses to wait on an interactive terminal with nothing given.
    static func single(argument: String?, asString: Bool) throws -> JSONValue {
        if let argument { return payload(argument, asString: asString) }
        guard !Terminal.isTerminal(0) else {
            throw CLIError("no message: give MESSAGE or pipe it on standard input", isUsage: true)
        }
        var text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { throw CLIError("no message: standard input was empty", isUsage: true) }
        return payload(text, asString: asString)
    }

    /// The lines of standard input as they arrive (empty lines skipped, `\r\n` accepted).
    static func lines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = Swift.readLine(strippingNewline: true) {
                    let text = line.hasSuffix("\r") ? String(line.dropLast()) : line
                    if !text.isEmpty { continuation.yield(text) }
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}
