extension HookEvent {
    /// Reads an event back from its JSON text (`body()`), as the durable outbox stores it.
    public init?(body: [UInt8]) {
        guard let members = JSONObjectText.members(body),
              let trigger = JSONObjectText.string(members["event"]).flatMap(HookTrigger.init(rawValue:)),
              let action = JSONObjectText.string(members["action"]).flatMap(HookAction.init(rawValue:)),
              let subscribeKey = JSONObjectText.string(members["subscribeKey"]),
              let channel = JSONObjectText.string(members["channel"]) else { return nil }
        func raw(_ name: String) -> [UInt8]? {
            JSONObjectText.isNull(members[name]) ? nil : members[name].map { Array($0) }
        }
        let isPresence = trigger == .afterPresence
        self.init(trigger: trigger, action: action, subscribeKey: subscribeKey, channel: channel,
                  message: isPresence ? nil : raw("message"), meta: raw("meta"),
                  uuid: JSONObjectText.string(members[isPresence ? "uuid" : "publisher"]),
                  timetoken: JSONObjectText.string(members["timetoken"]).flatMap { Timetoken(parsing: Substring($0)) },
                  customMessageType: JSONObjectText.string(members["customMessageType"]),
                  occupancy: JSONObjectText.integer(members["occupancy"]),
                  timestamp: JSONObjectText.integer(members["timestamp"]), state: raw("state"))
    }
}
