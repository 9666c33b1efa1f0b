import Logging
import NIOCore
import NIOPosix
import Synchronization

/// What the listener does when `accept` fails: with no descriptor left (EMFILE, ENFILE) or no
/// memory for a socket, retrying at once would spin a core while nothing can be accepted, so the
/// listener pauses reading for `pause` and the failure is counted and logged, at most once per
/// `logInterval` (with how many happened since the last line).
final class AcceptBackoff: Sendable {
    /// How long the listener stops accepting after a failure.
    static let pause = TimeAmount.milliseconds(100)
    /// Least time between two log lines.
    static let logInterval = TimeAmount.seconds(10)

    private let logger: Logger
    private let gauges: ServerGauges
    private let state = Mutex<(unlogged: Int, lastLog: NIODeadline?)>((0, nil))

    /// Counts failures in `gauges` and logs them to `logger`.
    init(logger: Logger, gauges: ServerGauges) {
        self.logger = logger
        self.gauges = gauges
    }

    /// A handler for a listener's pipeline.
    func handler() -> AcceptBackoffHandler {
        AcceptBackoffHandler(shouldForwardIOErrorCaught: false) { [self] error in
            self.failed(error, now: .now())
        }
    }

    /// Counts a failed accept and returns the pause before the next one.
    func failed(_ error: IOError, now: NIODeadline) -> TimeAmount {
        gauges.acceptFailed()
        let logNow: Int? = state.withLock { state in
            state.unlogged += 1
            if let last = state.lastLog, now - last < Self.logInterval { return nil }
            state.lastLog = now
            defer { state.unlogged = 0 }
            return state.unlogged
        }
        if let count = logNow {
            logger.error("accept failed; pausing new connections", metadata: [
                "error": "\(error)", "failures": "\(count)", "pauseMilliseconds": "\(Self.pause.nanoseconds / 1_000_000)",
            ])
        }
        return Self.pause
    }
}
