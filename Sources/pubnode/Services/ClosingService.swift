import ServiceLifecycle

/// A component that runs by itself and only needs closing in its turn: waits for the group to
/// stop (gracefully, or by cancellation after another service failed), then closes it.
struct ClosingService: Service, CustomStringConvertible {
    /// Name in logs and in the group's errors.
    let name: String
    /// Closes the component; runs exactly once, when the group stops.
    let close: @Sendable () async -> Void

    /// Creates the service of a component closed by `close`.
    init(_ name: String, close: @escaping @Sendable () async -> Void) {
        self.name = name
        self.close = close
    }

    /// The name.
    var description: String { name }

    /// Waits for shutdown, then closes.
    func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
