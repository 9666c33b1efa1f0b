extension Node {
    /// Delivers an event the node itself produces (a message action or App Context change) to the
    /// subscribers of `channel` on `keyset`, through the broker like any message: it gets a
    /// timetoken, sits in the channel's buffer for catch-up, and is never stored in history.
    ///
    /// `payload` must be valid JSON text (the node renders it); `actor` is the uuid shown as the
    /// envelope's `i`.
    func emit(_ kind: MessageKind, channel: String, payload: [UInt8], actor: String?, on keyset: ServedKeyset) {
        let draft = PublishDraft(channel: channel, payload: payload, publisher: actor, kind: kind, store: false)
        keyset.broker.deliver(draft)
    }
}
