import ArgumentParser
import Foundation
import PubNodeClient

/// Runs `pubnode-cli` and maps every outcome to the tool's exit status.
public enum PubNodeCLIRunner {
    /// Exit status of a successful run (also `--help` and `--version`).
    public static let success: Int32 = 0
    /// Exit status when the node refused a request or could not be reached.
    public static let failure: Int32 = 1
    /// Exit status of a usage error: an unknown flag, a missing argument, a bad value.
    public static let usage: Int32 = 2

    /// Parses `arguments` (without the program name), runs the command and returns its exit status.
    ///
    /// Help and version text go to standard output; error messages to standard error.
    public static func run(_ arguments: [String]) async -> Int32 {
        let outcome = await execute(arguments)
        if !outcome.message.isEmpty {
            if outcome.status == success {
                Console.standardOutput.write(outcome.message)
            } else {
                Console.standardError.write(outcome.message)
            }
        }
        return outcome.status
    }

    /// Parses `arguments` and runs the command; returns the exit status and the message to print
    /// (help or version text for status 0, an error otherwise; empty when the command printed its own output).
    public static func execute(_ arguments: [String]) async -> (status: Int32, message: String) {
        do {
            var command = try PubNodeCLICommand.parseAsRoot(movingGlobalOptions(arguments))
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return (success, "")
        } catch {
            return outcome(for: error, color: !arguments.contains("--no-color"))
        }
    }

    /// Global options that take a value, and those that are flags.
    static let globalOptionsWithValue: Set<String> = [
        "--origin", "--pub-key", "--sub-key", "--uuid", "--auth", "--secret-key", "--timeout",
    ]
    static let globalFlags: Set<String> = ["--secure", "--json", "--no-color"]

    /// `arguments` with the global options written before the command name (as in
    /// `pubnode-cli --origin host:port publish chat hi`) moved behind it, where each command
    /// declares them; everything else keeps its order.
    static func movingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if globalFlags.contains(argument) {
                leading.append(argument)
            } else if globalOptionsWithValue.contains(name) {
                leading.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    index += 1
                    leading.append(arguments[index])
                }
            } else {
                break
            }
            index += 1
        }
        guard !leading.isEmpty else { return arguments }
        var rest = Array(arguments[index...])
        let terminator = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: leading, at: terminator)
        return rest
    }

    /// The exit status and message for an error thrown while parsing or running a command;
    /// `color: false` keeps escape codes out of the message even on a terminal.
    public static func outcome(for error: any Error, color: Bool = true) -> (status: Int32, message: String) {
        if let error = error as? CLIError {
            let style = Style(enabled: color && Terminal.colorEnabled(fileDescriptor: 2))
            return (error.isUsage ? usage : failure, style.red("error:") + " " + error.message)
        }
        let code = PubNodeCLICommand.exitCode(for: error).rawValue
        let message = PubNodeCLICommand.fullMessage(for: error)
        switch code {
        case ExitCode.success.rawValue: return (success, message)
        case ExitCode.validationFailure.rawValue: return (usage, message)
        default: return (code, message)
        }
    }
}
