import NIOCore
import NIOHTTP1

/// Builds the requests of each scenario in the URL shapes of the chosen server.
struct RequestFactory: Sendable {
    /// Server kind whose URL shapes are used.
    let target: ServerTarget
    /// Value of the `Host` request header.
    let hostHeader: String
    /// PubNub publish key used in PubNode URLs.
    var publishKey = "demo"
    /// PubNub subscribe key used in PubNode URLs.
    var subscribeKey = "demo"
    /// `&auth=<token>` appended to every PubNode request, or empty.
    var authQuery = ""
    /// `&meta=<json>` appended to every PubNode publish, or empty.
    var publishQuery = ""
    /// `&filter-expr=<expression>` appended to every PubNode subscribe, or empty.
    var subscribeQuery = ""

    /// A publish of `message` (JSON text) to `channel`.
    ///
    /// PubNode: `GET /publish/{pub}/{sub}/0/{channel}/0/{percent-encoded JSON}?uuid=load`.
    /// Nchan: `POST /pub?id={channel}` with the JSON text as body.
    func publish(channel: String, message: String) -> OutboundRequest {
        switch target {
        case .pubnode:
            let uri = "/publish/\(publishKey)/\(subscribeKey)/0/\(PercentEncoding.encode(channel))/0/"
                + "\(PercentEncoding.encode(message))?uuid=load\(authQuery)\(publishQuery)"
            return OutboundRequest(method: .GET, uri: uri, hostHeader: hostHeader)
        case .nchan:
            var body = ByteBuffer()
            body.writeString(message)
            return OutboundRequest(
                method: .POST,
                uri: "/pub?id=\(PercentEncoding.encode(channel))",
                hostHeader: hostHeader,
                headers: [("Content-Type", "application/json")],
                body: body
            )
        }
    }

    /// Whether `reply` acknowledges a publish: PubNode answers 200 `[1,"Sent","<tt>"]`, Nchan any 2xx.
    func isPublishAccepted(_ reply: HTTPReply) -> Bool {
        switch target {
        case .pubnode:
            guard reply.statusCode == 200 else { return false }
            return BodyScanner.hasPrefix(reply.body, Self.sentPrefix)
        case .nchan:
            return reply.isSuccess
        }
    }

    /// Expected start of a successful PubNode publish answer.
    private static let sentPrefix = Array("[1,\"Sent\",".utf8)

    /// A PubNode subscribe long-poll: `tt=0` is the handshake, later ones resume from `timetoken`.
    func pubnodeSubscribe(channel: String, uuid: String, timetoken: String) -> OutboundRequest {
        let uri = "/v2/subscribe/\(subscribeKey)/\(PercentEncoding.encode(channel))/0?tt=\(timetoken)&uuid=\(uuid)\(authQuery)\(subscribeQuery)"
        return OutboundRequest(method: .GET, uri: uri, hostHeader: hostHeader)
    }

    /// An Nchan long-poll; the conditional headers come from the previous response.
    func nchanSubscribe(channel: String, lastModified: String?, etag: String?) -> OutboundRequest {
        var headers: [(String, String)] = []
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        if let etag { headers.append(("If-None-Match", etag)) }
        return OutboundRequest(
            method: .GET, uri: "/sub?id=\(PercentEncoding.encode(channel))", hostHeader: hostHeader, headers: headers
        )
    }
}
