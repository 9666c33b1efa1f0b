import Foundation
import PubNodeAccessWire

/// The client's current access token and the timer that reports it nearing expiry.
final class AccessState: Sendable {
    private struct State {
        var token: String?
        var watch: Task<Void, Never>?
    }

    /// Unix seconds (signature timestamps, token expiry).
    let wallClock: @Sendable () -> Double
    private let sleeper: any PubNodeSleeper
    private let hub: EventHub
    private let warning: Double
    private let state: Locked<State>

    init(token: String?, wallClock: @escaping @Sendable () -> Double, sleeper: any PubNodeSleeper, hub: EventHub,
         warning: Double) {
        self.wallClock = wallClock
        self.sleeper = sleeper
        self.hub = hub
        self.warning = warning
        self.state = Locked(State(token: token))
    }

    /// The token the next request carries.
    var token: String? { state.withLock { $0.token } }

    /// Replaces the token and restarts the expiry timer for it.
    func set(_ token: String?) {
        state.withLock { $0.token = token }
        watchExpiry()
    }

    /// Starts (or restarts) the timer that emits `.tokenNearingExpiry` `warning` seconds before the
    /// current token expires; nothing for no token or one that is not a v3 token.
    func watchExpiry() {
        let (token, old) = state.withLock { state -> (String?, Task<Void, Never>?) in
            let old = state.watch
            state.watch = nil
            return (state.token, old)
        }
        old?.cancel()
        guard let token, let parsed = try? AccessToken.decode(token) else { return }
        let expiresAt = parsed.expiresAt
        let delay = Double(expiresAt) - warning - wallClock()
        let (sleeper, hub, wallClock, state) = (self.sleeper, self.hub, self.wallClock, self.state)
        let task = Task {
            if delay > 0 {
                do { try await sleeper.sleep(seconds: delay) } catch { return }
            }
            // A token set meanwhile has its own timer.
            guard !Task.isCancelled, state.withLock({ $0.token }) == token else { return }
            hub.emit(.tokenNearingExpiry(TokenExpiryNotice(
                token: token, expiresAt: expiresAt, secondsLeft: max(0, Double(expiresAt) - wallClock()))))
        }
        let stale = state.withLock { state -> Task<Void, Never>? in
            guard state.token == token else { return task }
            let previous = state.watch
            state.watch = task
            return previous
        }
        stale?.cancel()
    }

    /// Cancels the expiry timer.
    func stopWatching() {
        state.withLock { $0.watch }?.cancel()
    }
}

/// The report that the client's access token expires soon: fetch a new one and `set(token:)` it.
public struct TokenExpiryNotice: Sendable, Equatable {
    /// The token that is about to expire.
    public var token: String
    /// When it expires, in Unix seconds.
    public var expiresAt: UInt64
    /// Seconds left until then (0 when already expired).
    public var secondsLeft: Double

    /// A notice.
    public init(token: String, expiresAt: UInt64, secondsLeft: Double) {
        self.token = token
        self.expiresAt = expiresAt
        self.secondsLeft = secondsLeft
    }
}
