import ArgumentParser
import Foundation
import Logging
import PubNodeCore

/// `pubnode`: serves PubNub's publish/subscribe protocol over HTTP long-poll.
///
/// ArgumentParser handles the command, `--config` and `--help`; every other flag belongs to the
/// settings table (`NodeConfiguration.settings`), which also writes their help.
@main
struct PubNodeCommand: AsyncParsableCommand {
    /// The command's name, abstract and settings help.
    static let configuration = CommandConfiguration(
        commandName: "pubnode",
        abstract: "A self-hosted publish/subscribe node speaking PubNub's HTTP protocol.",
        discussion: NodeConfiguration.settingsHelp)

    /// The JSON configuration file.
    @Option(help: "JSON configuration file.") var config: String?

    /// Every other argument: the settings flags, applied by the table.
    @Argument(parsing: .allUnrecognized, help: "Settings as --flag value (listed above).")
    var settings: [String] = []

    /// The merged configuration: defaults, `--config`, `environment`, then the flags.
    func resolvedConfiguration(environment: [String: String]) throws(ConfigurationError) -> NodeConfiguration {
        try NodeConfiguration.resolve(file: config, environment: environment, flags: settings)
    }

    /// Runs the node until SIGTERM or SIGINT has drained it.
    func run() async throws {
        let configuration: NodeConfiguration
        do {
            configuration = try resolvedConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
        let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
        LoggingSystem.bootstrap { label in LogFormat.handler(configuration.logFormat, label: label, level: level) }
        let logger = Logger(label: "pubnode")
        let runtime = try NodeRuntime.make(configuration, logger: logger)
        try await runtime.run(logger: logger)
    }
}
