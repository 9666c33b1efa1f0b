import Foundation
import PubNodeClient

/// Collects every event a client reports, through a listener.
public final class EventRecorder: SubscriptionListener, @unchecked Sendable {
    // Invariant: `recorded` is only touched while `lock` is held.
    private let lock = NSLock()
    private var recorded: [SubscriptionEvent] = []

    /// An empty recorder.
    public init() {}

    private func append(_ event: SubscriptionEvent) {
        lock.lock(); defer { lock.unlock() }
        recorded.append(event)
    }

    /// Every event so far, in order.
    public var events: [SubscriptionEvent] {
        lock.lock(); defer { lock.unlock() }
        return recorded
    }

    /// The messages so far.
    public var messages: [ReceivedMessage] {
        events.compactMap { if case .message(let message) = $0 { return message } else { return nil } }
    }

    /// The signals so far.
    public var signals: [ReceivedMessage] {
        events.compactMap { if case .signal(let signal) = $0 { return signal } else { return nil } }
    }

    /// The presence changes so far.
    public var presence: [PresenceChange] {
        events.compactMap { if case .presence(let change) = $0 { return change } else { return nil } }
    }

    /// The connection statuses entered so far.
    public var statuses: [ConnectionStatus] {
        events.compactMap { if case .status(let change) = $0 { return change.current } else { return nil } }
    }

    /// Records a message.
    public func didReceive(message: ReceivedMessage) { append(.message(message)) }
    /// Records a signal.
    public func didReceive(signal: ReceivedMessage) { append(.signal(signal)) }
    /// Records a presence change.
    public func didReceive(presence: PresenceChange) { append(.presence(presence)) }
    /// Records a status change.
    public func didChange(status: StatusChange) { append(.status(status)) }
    /// Records a subscription change.
    public func didChange(subscription: SubscriptionChange) { append(.subscriptionChanged(subscription)) }
    /// Records an error.
    public func didFail(error: PubNodeClientError) { append(.error(error)) }
    /// Records a token-expiry notice.
    public func tokenNearingExpiry(_ notice: TokenExpiryNotice) { append(.tokenNearingExpiry(notice)) }
    /// Records a message action event.
    public func didReceive(messageActionEvent: SubscriptionEvent) { append(messageActionEvent) }
    /// Records an App Context event.
    public func didReceive(appContextEvent: SubscriptionEvent) { append(appContextEvent) }
}

/// Subscribes and waits until the handshake has answered (the client is connected).
///
/// Nothing more is needed before publishing: the handshake's cursor is older than any later
/// publish, so the long-poll that follows collects it whether it reaches the node before or after.
public func subscribeConnected(_ client: PubNodeClient, _ recorder: EventRecorder, to channels: [String],
                               groups: [String] = [], withPresence: Bool = false,
                               file: StaticString = #filePath, line: UInt = #line) async {
    await client.subscribe(to: channels, and: groups, withPresence: withPresence)
    await waitUntil(5, "connected", file: file, line: line) { await client.connectionStatus == .connected }
}
