import Foundation

extension SubscriptionLoop {
    /// Delivers one message envelope unless it was delivered before.
    func deliver(_ envelope: JSONValue) {
        guard let channel = envelope["c"]?.stringValue, let timetoken = envelope["p"]?["t"]?.intValue else { return }
        let payload = envelope["d"] ?? .null
        let publisher = envelope["i"]?.stringValue
        guard dedupe.insert("\(timetoken)|\(publisher ?? "")|\(channel)|\(payload.jsonString)") else { return }
        let subscription = envelope["b"]?.stringValue
        if channel.hasSuffix("-pnpres") {
            hub.emit(.presence(PresenceChange(
                channel: String(channel.dropLast("-pnpres".count)),
                subscription: subscription.map { $0.hasSuffix("-pnpres") ? String($0.dropLast(7)) : $0 },
                action: payload["action"]?.stringValue ?? "", uuid: payload["uuid"]?.stringValue,
                occupancy: Int(payload["occupancy"]?.intValue ?? 0), timestamp: Int(payload["timestamp"]?.intValue ?? 0),
                state: payload["state"] ?? payload["data"],
                join: payload["join"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                leave: payload["leave"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                timeout: payload["timeout"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                timetoken: UInt64(timetoken))))
            return
        }
        let kind = envelope["e"]?.intValue ?? 0
        switch kind {
        case 2:
            if let event = AppContextEvents.event(payload) { hub.emit(event) }
            return
        case 3:
            if let event = MessageActionEvents.event(payload, channel: channel, actor: publisher) { hub.emit(event) }
            return
        default:
            break
        }
        var message = ReceivedMessage(channel: channel, subscription: subscription, payload: payload, publisher: publisher,
                                      timetoken: UInt64(timetoken), meta: envelope["u"],
                                      customMessageType: envelope["cmt"]?.stringValue)
        if kind == 1 {
            hub.emit(.signal(message))
            return
        }
        if let module = configuration.cryptoModule {
            // Like the SDKs: a payload that cannot be decrypted is delivered as it came, after an error.
            do {
                message.payload = try module.decryptPayload(payload)
            } catch {
                message.decryptionError = error
                hub.emit(.error(error))
            }
        }
        hub.emit(.message(message))
    }
}
