/// PubNode presence requests (PubNode only: Nchan has no presence).
extension RequestFactory {
    /// `GET /v2/presence/sub-key/{sub}/channel/{channels}/heartbeat?uuid=…&heartbeat=…`.
    func heartbeat(channels: [String], uuid: String, timeoutSeconds: Int) -> OutboundRequest {
        let list = channels.map(PercentEncoding.encode).joined(separator: ",")
        let uri = "/v2/presence/sub-key/\(subscribeKey)/channel/\(list)/heartbeat"
            + "?uuid=\(PercentEncoding.encode(uuid))&heartbeat=\(timeoutSeconds)\(authQuery)"
        return OutboundRequest(method: .GET, uri: uri, hostHeader: hostHeader)
    }

    /// `GET /v2/presence/sub-key/{sub}/channel/{channel}` (here-now), with or without the uuid list.
    func hereNow(channel: String, listUUIDs: Bool) -> OutboundRequest {
        let uri = "/v2/presence/sub-key/\(subscribeKey)/channel/\(PercentEncoding.encode(channel))"
            + (listUUIDs ? "?uuid=load" : "?uuid=load&disable_uuids=1") + authQuery
        return OutboundRequest(method: .GET, uri: uri, hostHeader: hostHeader)
    }
}
