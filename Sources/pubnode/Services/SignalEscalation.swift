import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Watches the shutdown signals beside the group: the first one starts the group's graceful drain
/// (the group acts on it; this logs it), a second one during the drain ends the process at once,
/// exiting with 128 + the signal number.
///
/// It is the group's first service, so it is stopped last: it keeps watching for the whole drain.
struct SignalEscalation: Service, CustomStringConvertible {
    /// The signals that drain the group (SIGTERM and SIGINT).
    let signals: [UnixSignal]
    /// Where the first signal is logged.
    let logger: Logger

    /// Its name in logs.
    var description: String { "signal escalation" }

    /// Watches until the group has drained.
    func run() async throws {
        let sequence = await UnixSignalsSequence(trapping: signals)
        await Self.watch(sequence.cancelOnGracefulShutdown(), logger: logger) { signal in
            FileHandle.standardError.write(Data("second signal: exiting without waiting for the drain\n".utf8))
            exit(128 + signal.rawValue)
        }
    }

    /// Logs the first signal of `signals` and hands the second to `onSecond`.
    static func watch<Signals: AsyncSequence>(_ signals: Signals, logger: Logger,
                                              onSecond: (UnixSignal) -> Void) async
        where Signals.Element == UnixSignal {
        var seen = 0
        do {
            for try await signal in signals {
                seen += 1
                if seen == 1 {
                    logger.info("draining", metadata: ["signal": "\(signal)"])
                } else {
                    onSecond(signal)
                    return
                }
            }
        } catch {
            // The signal sequences end without failing; a failure only ends the watch.
        }
    }
}
