import PubNodeCore

/// Renders the presence endpoints' answers in the shapes PubNub's SDKs parse.
enum PresenceResponse {
    /// Heartbeat: `{"status":200,"message":"OK","service":"Presence"}`.
    static let heartbeat = #"{"status":200,"message":"OK","service":"Presence"}"#

    /// Leave: `{"status":200,"message":"OK","action":"leave","service":"Presence"}`.
    static let leave = #"{"status":200,"message":"OK","action":"leave","service":"Presence"}"#

    /// Here-now of one channel without groups:
    /// `{"status":200,"message":"OK","occupancy":N,"uuids":[…],"service":"Presence"}`.
    static func hereNow(single channel: ChannelOccupancy, query: OccupancyQuery) -> String {
        var out = Array(#"{"status":200,"message":"OK","occupancy":"#.utf8)
        out.append(contentsOf: String(channel.occupancy).utf8)
        if query.includeUUIDs {
            out.append(contentsOf: #","uuids":"#.utf8)
            appendOccupants(channel.occupants, withState: query.includeState, to: &out)
        }
        out.append(contentsOf: #","service":"Presence"}"#.utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// Here-now of several channels, of groups or of the whole keyset: occupied channels only,
    /// `{"status":200,"message":"OK","payload":{"channels":{"ch":{"occupancy":N,"uuids":[…]}},
    /// "total_channels":K,"total_occupancy":M},"service":"Presence"}`.
    static func hereNow(channels: [ChannelOccupancy], query: OccupancyQuery) -> String {
        let occupied = channels.filter { $0.occupancy > 0 }
        var out = Array(#"{"status":200,"message":"OK","payload":{"channels":{"#.utf8)
        for (index, channel) in occupied.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(channel.channel, to: &out)
            out.append(contentsOf: #":{"occupancy":"#.utf8)
            out.append(contentsOf: String(channel.occupancy).utf8)
            if query.includeUUIDs {
                out.append(contentsOf: #","uuids":"#.utf8)
                appendOccupants(channel.occupants, withState: query.includeState, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"},"total_channels":"#.utf8)
        out.append(contentsOf: String(occupied.count).utf8)
        out.append(contentsOf: #","total_occupancy":"#.utf8)
        out.append(contentsOf: String(occupied.reduce(0) { $0 + $1.occupancy }).utf8)
        out.append(contentsOf: #"},"service":"Presence"}"#.utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// Where-now: `{"status":200,"message":"OK","payload":{"channels":[…]},"service":"Presence"}`.
    static func whereNow(_ channels: [String]) -> String {
        let list = channels.map(JSONText.string).joined(separator: ",")
        return #"{"status":200,"message":"OK","payload":{"channels":[\#(list)]},"service":"Presence"}"#
    }

    /// Set state: `{"status":200,"message":"OK","payload":{state},"service":"Presence"}`.
    static func setState(_ state: [UInt8]?) -> String {
        #"{"status":200,"message":"OK","payload":\#(text(state)),"service":"Presence"}"#
    }

    /// Get state of one channel:
    /// `{"status":200,"message":"OK","payload":{state},"uuid":"u","channel":"ch","service":"Presence"}`.
    static func state(uuid: String, channel: String, state: [UInt8]?) -> String {
        #"{"status":200,"message":"OK","payload":\#(text(state)),"uuid":\#(JSONText.string(uuid)),"channel":\#(JSONText.string(channel)),"service":"Presence"}"#
    }

    /// Get state of several channels or groups:
    /// `{"status":200,"message":"OK","payload":{"channels":{"a":{…}}},"uuid":"u","service":"Presence"}`.
    static func state(uuid: String, states: [(channel: String, state: [UInt8]?)]) -> String {
        let members = states.map { JSONText.string($0.channel) + ":" + text($0.state) }.joined(separator: ",")
        return #"{"status":200,"message":"OK","payload":{"channels":{\#(members)}},"uuid":\#(JSONText.string(uuid)),"service":"Presence"}"#
    }

    /// `["a","b"]`, or with state `[{"uuid":"a","state":{…}},{"uuid":"b"}]`.
    private static func appendOccupants(_ occupants: [ChannelOccupancy.Occupant], withState: Bool, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, occupant) in occupants.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard withState else {
                JSONText.appendString(occupant.uuid, to: &out)
                continue
            }
            out.append(contentsOf: #"{"uuid":"#.utf8)
            JSONText.appendString(occupant.uuid, to: &out)
            if let state = occupant.state {
                out.append(contentsOf: #","state":"#.utf8)
                out.append(contentsOf: state)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func text(_ state: [UInt8]?) -> String {
        state.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
