import Logging
import ServiceLifecycle
import UnixSignals

/// The node's services, by role, and the one `ServiceGroup` that runs them.
///
/// A group starts its services in list order and, on graceful shutdown, stops them in reverse,
/// each only after the one before has returned. The list is therefore history, webhooks, hooks,
/// server, sweeps, so that a drain goes: the sweeps stop (no sweep is running and none can wake a
/// subscriber on an event loop that is shutting down), the HTTP server drains (parked long-polls
/// answered with their cursor, connections closed, event loops stopped), the hook engine stops its
/// workers and saves its outbox, the webhook clients close, and history commits and closes.
struct NodeServices {
    /// Commits and closes history; nil when no keyset keeps history.
    var history: (any Service)?
    /// Closes a cluster member's Redis connections; nil for a single node.
    var cluster: (any Service)?
    /// Closes the webhook clients.
    var webhooks: any Service
    /// Stops the hook engine's delivery workers and saves their queues.
    var hooks: any Service
    /// Serves HTTP, then drains.
    var server: any Service
    /// The periodic sweeps.
    var sweeps: [any Service]

    /// Every service in start order (the reverse of the shutdown order).
    var startOrder: [any Service] {
        [history, cluster].compactMap { $0 } + [webhooks, hooks, server] + sweeps
    }

    /// The group running `startOrder`. `signals` drain it; with signals, a `SignalEscalation` is
    /// added first (so stopped last) that exits at once on a second signal.
    func group(signals: [UnixSignal], logger: Logger) -> ServiceGroup {
        var services = startOrder
        if !signals.isEmpty { services.insert(SignalEscalation(signals: signals, logger: logger), at: 0) }
        let configuration = ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: signals, logger: logger)
        return ServiceGroup(configuration: configuration)
    }
}
