import Foundation

/// An object told about subscription events; implement only the methods you need.
///
/// Listeners are called one at a time, in event order, on the client's subscription actor. Keep
/// them short; hop to your own actor (e.g. `Task { @MainActor in … }`) for longer work.
public protocol SubscriptionListener: AnyObject, Sendable {
    /// A message arrived.
    func didReceive(message: ReceivedMessage)
    /// A signal arrived.
    func didReceive(signal: ReceivedMessage)
    /// A presence event arrived.
    func didReceive(presence: PresenceChange)
    /// The connection state changed.
    func didChange(status: StatusChange)
    /// The subscription set changed.
    func didChange(subscription: SubscriptionChange)
    /// The subscription reported an error.
    func didFail(error: PubNodeClientError)
    /// The access token expires soon: get a new one and call `set(token:)`.
    func tokenNearingExpiry(_ notice: TokenExpiryNotice)
    /// A message action was added or removed (`.messageActionAdded` or `.messageActionRemoved`).
    func didReceive(messageActionEvent: SubscriptionEvent)
    /// App Context metadata or a membership was set or removed (the `.uuidMetadata…`,
    /// `.channelMetadata…` and `.membershipMetadata…` events).
    func didReceive(appContextEvent: SubscriptionEvent)
}

extension SubscriptionListener {
    /// Ignores the message.
    public func didReceive(message: ReceivedMessage) {}
    /// Ignores the signal.
    public func didReceive(signal: ReceivedMessage) {}
    /// Ignores the presence event.
    public func didReceive(presence: PresenceChange) {}
    /// Ignores the status change.
    public func didChange(status: StatusChange) {}
    /// Ignores the subscription change.
    public func didChange(subscription: SubscriptionChange) {}
    /// Ignores the error.
    public func didFail(error: PubNodeClientError) {}
    /// Ignores the notice.
    public func tokenNearingExpiry(_ notice: TokenExpiryNotice) {}
    /// Ignores the message action event.
    public func didReceive(messageActionEvent: SubscriptionEvent) {}
    /// Ignores the App Context event.
    public func didReceive(appContextEvent: SubscriptionEvent) {}
}

/// Fans events out to listeners and `AsyncStream`s.
final class EventHub: Sendable {
    private struct Sinks {
        var listeners: [ObjectIdentifier: any SubscriptionListener] = [:]
        var streams: [UUID: AsyncStream<SubscriptionEvent>.Continuation] = [:]
    }
    private let sinks = Locked(Sinks())

    deinit {
        // Streams still being iterated end when the client goes away.
        for continuation in sinks.withLock({ Array($0.streams.values) }) { continuation.finish() }
    }

    func add(_ listener: any SubscriptionListener) {
        sinks.withLock { $0.listeners[ObjectIdentifier(listener)] = listener }
    }

    func remove(_ listener: any SubscriptionListener) {
        _ = sinks.withLock { $0.listeners.removeValue(forKey: ObjectIdentifier(listener)) }
    }

    func stream(bufferingNewest limit: Int?) -> AsyncStream<SubscriptionEvent> {
        let id = UUID()
        let policy: AsyncStream<SubscriptionEvent>.Continuation.BufferingPolicy = limit.map { .bufferingNewest($0) } ?? .unbounded
        let (stream, continuation) = AsyncStream.makeStream(of: SubscriptionEvent.self, bufferingPolicy: policy)
        continuation.onTermination = { [weak self] _ in
            _ = self?.sinks.withLock { $0.streams.removeValue(forKey: id) }
        }
        sinks.withLock { $0.streams[id] = continuation }
        return stream
    }

    /// Delivers `event` to every listener and stream, in the caller's order.
    func emit(_ event: SubscriptionEvent) {
        let (listeners, streams) = sinks.withLock { (Array($0.listeners.values), Array($0.streams.values)) }
        for continuation in streams { continuation.yield(event) }
        for listener in listeners {
            switch event {
            case .message(let message): listener.didReceive(message: message)
            case .signal(let signal): listener.didReceive(signal: signal)
            case .presence(let presence): listener.didReceive(presence: presence)
            case .status(let status): listener.didChange(status: status)
            case .subscriptionChanged(let change): listener.didChange(subscription: change)
            case .error(let error): listener.didFail(error: error)
            case .tokenNearingExpiry(let notice): listener.tokenNearingExpiry(notice)
            case .messageActionAdded, .messageActionRemoved: listener.didReceive(messageActionEvent: event)
            case .uuidMetadataSet, .uuidMetadataRemoved, .channelMetadataSet, .channelMetadataRemoved,
                 .membershipMetadataSet, .membershipMetadataRemoved:
                listener.didReceive(appContextEvent: event)
            }
        }
    }
}
