import Dispatch
import Synchronization

/// A repeating timer on its own queue, started and stopped at most once each.
final class SweepTimer: Sendable {
    /// The timer source; a `DispatchSourceTimer` is thread-safe to resume and cancel.
    private let source = Mutex<(any DispatchSourceTimer)?>(nil)

    /// Calls `tick` every `seconds` (at least 1) until stopped; a second start is ignored.
    func start(every seconds: Int, _ tick: @escaping @Sendable () -> Void) {
        source.withLock { source in
            guard source == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pubnode.history.sweeper"))
            let interval = DispatchTimeInterval.seconds(max(1, seconds))
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler(handler: tick)
            timer.resume()
            source = timer
        }
    }

    /// Cancels the timer.
    func stop() {
        source.withLock { $0?.cancel() }
    }
}
