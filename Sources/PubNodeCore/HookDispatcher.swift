/// Where fired messages (and, later, other events) go for server-side handlers.
///
/// `fire` bypasses subscribers and storage: the message is handed here and nowhere else.
public protocol HookDispatcher: Sendable {
    /// Receives a fired message; must not block the caller.
    func fired(_ message: PublishedMessage, subscribeKey: String)
}

/// Drops fired messages: the default while no handler is configured.
public struct NoHookDispatcher: HookDispatcher {
    /// Creates the no-op dispatcher.
    public init() {}

    /// Ignores the message.
    public func fired(_ message: PublishedMessage, subscribeKey: String) {}
}
