import NIOCore
import NIOHTTP1
import PubNodeCore

extension Router {
    /// The operator's view of the after hooks, behind `Authorization: Bearer <adminToken>`:
    /// - `GET /v1/admin/hooks`: each hook's queue depth and counters;
    /// - `GET /v1/admin/hooks/dead-letters[?hook=NAME][&limit=N]`: events whose retries ran out
    ///   (oldest first, 100 by default, 1000 at most);
    /// - `POST /v1/admin/hooks/replay[?hook=NAME][&id=1,2]`: queue dead letters again.
    func hooksAdmin(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        let action: HookAdminRequest.Action
        switch (request.method, s.count == 3 ? "" : s[3]) {
        case (.GET, "") where s.count == 3: action = .stats
        case (.GET, "dead-letters") where s.count == 4: action = .deadLetters(limit: request.query["limit"])
        case (.POST, "replay") where s.count == 4: action = .replay(ids: request.query["id"])
        default: action = .unknown
        }
        let call = HookAdminRequest(action: action, hook: request.query["hook"],
                                    credential: Self.bearer(request.headers["authorization"]))
        return answering(.object(service: "Hooks")) { () throws(PubNodeError) in
            switch try node.administerHooks(call) {
            case .stats(let stats):
                return .reply(.json(#"{"status":200,"service":"Hooks","hooks":[\#(stats.map(Self.render).joined(separator: ","))]}"#))
            case .deadLetters(let records):
                var body: [UInt8] = Array(#"{"status":200,"service":"Hooks","deadLetters":["#.utf8)
                for (index, record) in records.enumerated() {
                    if index > 0 { body.append(UInt8(ascii: ",")) }
                    Self.render(record, into: &body)
                }
                body.append(contentsOf: "]}".utf8)
                return .reply(HTTPReply(body: ByteBuffer(bytes: body)))
            case .replay(let replay):
                return later(.object(service: "Hooks")) { () throws(PubNodeError) in
                    .json(#"{"status":200,"service":"Hooks","replayed":\#(await replay.run())}"#)
                }
            }
        }
    }

    /// The token of `Authorization: Bearer <token>`, nil for anything else.
    static func bearer(_ header: String?) -> String? {
        guard let header, header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst("Bearer ".count))
    }

    private static func render(_ stats: HookStats) -> String {
        let c = stats.counters
        return #"{"name":\#(JSONText.string(stats.name)),"event":"\#(stats.trigger.rawValue)","target":\#(JSONText.string(stats.target)),"#
            + #""pending":\#(stats.pending),"inFlight":\#(stats.inFlight),"deadLetters":\#(stats.deadLetters),"spilled":\#(stats.spilled),"#
            + #""enqueued":\#(c.enqueued),"delivered":\#(c.delivered),"retries":\#(c.retries),"dropped":\#(c.dropped),"#
            + #""deadLettered":\#(c.deadLettered),"discarded":\#(c.discarded),"replayed":\#(c.replayed)}"#
    }

    private static func render(_ record: OutboxRecord, into body: inout [UInt8]) {
        body.append(contentsOf: #"{"id":"\#(record.id)","hook":"#.utf8)
        JSONText.appendString(record.hook, to: &body)
        body.append(contentsOf: #","attempts":\#(record.attempts),"createdAt":\#(record.createdAtMilliseconds),"lastError":"#.utf8)
        JSONText.appendString(record.lastError ?? "", to: &body)
        body.append(contentsOf: #","event":"#.utf8)
        body.append(contentsOf: record.body)
        body.append(UInt8(ascii: "}"))
    }
}
