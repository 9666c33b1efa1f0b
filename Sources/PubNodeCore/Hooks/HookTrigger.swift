/// When a hook runs, as named in the configuration file.
public enum HookTrigger: String, Sendable, CaseIterable {
    /// Before a publish or fire is accepted; may pass, modify or abort it.
    case beforePublish = "before-publish"
    /// After a publish or fire was accepted; never delays the publisher.
    case afterPublish = "after-publish"
    /// Before a signal is accepted.
    case beforeSignal = "before-signal"
    /// After a signal was accepted.
    case afterSignal = "after-signal"
    /// After a presence change (join, leave, timeout, state-change).
    case afterPresence = "after-presence"
    /// A request to `/v1/blocks/sub-key/{sub}/{path}`, answered by the handler.
    case onRequest = "on-request"

    /// True for the synchronous triggers whose handler decides the message's fate.
    public var isBefore: Bool { self == .beforePublish || self == .beforeSignal }

    /// True for the asynchronous triggers delivered through the outbox.
    public var isAfter: Bool { self == .afterPublish || self == .afterSignal || self == .afterPresence }

    /// The before trigger of a message kind.
    public static func before(_ kind: MessageKind) -> HookTrigger { kind == .signal ? .beforeSignal : .beforePublish }

    /// The after trigger of a message kind.
    public static func after(_ kind: MessageKind) -> HookTrigger { kind == .signal ? .afterSignal : .afterPublish }
}

/// What a hook event reports.
public enum HookAction: String, Sendable, CaseIterable {
    /// A message published to subscribers.
    case publish
    /// A message fired to hooks only.
    case fire
    /// A signal.
    case signal
    /// A uuid became present.
    case join
    /// A uuid left explicitly.
    case leave
    /// A uuid's presence timed out.
    case timeout
    /// A present uuid's state changed.
    case stateChange = "state-change"
}
