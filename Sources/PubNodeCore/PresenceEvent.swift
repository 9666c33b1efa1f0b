/// One presence event, published on `<channel>-pnpres` in PubNub's shape.
///
/// Per-uuid events: `{"action":"join","uuid":"u","occupancy":2,"timestamp":1700000000}`, with the
/// uuid's state as both `"state"` and `"data"` (the key the SDKs read) when it has one.
/// Interval events: `{"action":"interval","occupancy":25,"timestamp":…,"join":[…],"leave":[…],
/// "timeout":[…]}` (empty lists omitted), or `…,"here_now_refresh":true` when the lists are too big.
public struct PresenceEvent: Sendable, Equatable {
    /// What happened.
    public enum Action: String, Sendable {
        /// A uuid became present.
        case join
        /// A uuid left explicitly.
        case leave
        /// A uuid's presence timeout passed.
        case timeout
        /// A present uuid's state changed.
        case stateChange = "state-change"
        /// The periodic summary of a channel above announce-max.
        case interval
    }

    /// The channel whose presence changed (without `-pnpres`).
    public var channel: String
    /// What happened.
    public var action: Action
    /// The uuid concerned (per-uuid events only).
    public var uuid: String?
    /// The channel's occupancy after the change.
    public var occupancy: Int
    /// Unix time in seconds.
    public var timestamp: Int
    /// The uuid's state as JSON object text, when it has one.
    public var state: [UInt8]?
    /// Uuids that joined since the last interval event.
    public var joined: [String] = []
    /// Uuids that left since the last interval event.
    public var left: [String] = []
    /// Uuids that timed out since the last interval event.
    public var timedOut: [String] = []
    /// Set on an interval event whose deltas were too big to carry: clients should call here-now.
    public var hereNowRefresh = false

    /// Creates an event.
    public init(channel: String, action: Action, uuid: String?, occupancy: Int, timestamp: Int,
                state: [UInt8]? = nil) {
        self.channel = channel
        self.action = action
        self.uuid = uuid
        self.occupancy = occupancy
        self.timestamp = timestamp
        self.state = state
    }

    /// The presence channel the event is published on.
    public var presenceChannel: String { channel + NameRules.presenceSuffix }

    /// The event's JSON object text.
    public func payload() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96 + (uuid?.utf8.count ?? 0) + 2 * (state?.count ?? 0))
        out.append(contentsOf: #"{"action":"#.utf8)
        JSONText.appendString(action.rawValue, to: &out)
        if let uuid {
            out.append(contentsOf: #","uuid":"#.utf8)
            JSONText.appendString(uuid, to: &out)
        }
        out.append(contentsOf: #","occupancy":"#.utf8)
        out.append(contentsOf: String(occupancy).utf8)
        out.append(contentsOf: #","timestamp":"#.utf8)
        out.append(contentsOf: String(timestamp).utf8)
        if let state {
            out.append(contentsOf: #","state":"#.utf8)
            out.append(contentsOf: state)
            out.append(contentsOf: #","data":"#.utf8)
            out.append(contentsOf: state)
        }
        if hereNowRefresh {
            out.append(contentsOf: #","here_now_refresh":true"#.utf8)
        } else {
            for (key, list) in [("join", joined), ("leave", left), ("timeout", timedOut)] where !list.isEmpty {
                out.append(contentsOf: ",\"\(key)\":[".utf8)
                for (index, uuid) in list.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    JSONText.appendString(uuid, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The draft that publishes this event: not stored, kind `.presence`.
    public func draft() -> PublishDraft {
        PublishDraft(channel: presenceChannel, payload: payload(), kind: .presence, store: false)
    }
}
