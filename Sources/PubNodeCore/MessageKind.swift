/// What a published item is, as carried in the subscribe envelope's `e` field.
public enum MessageKind: UInt8, Sendable {
    /// An ordinary message (`e` omitted).
    case message = 0
    /// A signal: small, never stored (`e: 1`).
    case signal = 1
    /// A presence event on a `-pnpres` channel (`e` omitted, like PubNub).
    case presence = 100
}
