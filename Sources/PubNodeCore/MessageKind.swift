/// What a published item is, as carried in the subscribe envelope's `e` field.
public enum MessageKind: UInt8, Sendable {
    /// An ordinary message (`e` omitted).
    case message = 0
    /// A signal: small, never stored (`e: 1`).
    case signal = 1
    /// An App Context (objects) event: set or removed metadata or membership (`e: 2`). Never stored.
    case object = 2
    /// A message action event: an action added to or removed from a message (`e: 3`). Never stored.
    case messageAction = 3
    /// A presence event on a `-pnpres` channel (`e` omitted, like PubNub).
    case presence = 100
}

extension MessageKind {
    /// The `e` value written into the envelope, or nil when PubNub omits it.
    public var envelopeCode: UInt8? {
        switch self {
        case .message, .presence: nil
        case .signal, .object, .messageAction: rawValue
        }
    }
}
