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
        guard let adminToken else {
            return .reply(ErrorResponses.object(status: .forbidden,
                                                message: "Admin endpoints are disabled: configure adminToken", service: "Hooks"))
        }
        guard Self.constantTimeEqual(request.headers["authorization"] ?? "", "Bearer " + adminToken) else {
            return .reply(ErrorResponses.object(status: .unauthorized, message: "Missing or wrong admin token", service: "Hooks"))
        }
        let s = request.segments
        let hook = request.query["hook"]
        if let hook, !node.hooks.hasAfterHook(named: hook) {
            return .reply(ErrorResponses.object(status: .notFound, message: "No after hook named '\(hook)'", service: "Hooks"))
        }
        switch (request.method, s.count == 3 ? "" : s[3]) {
        case (.GET, "") where s.count == 3:
            return .reply(.json(#"{"status":200,"service":"Hooks","hooks":[\#(node.hooks.stats().map(Self.render).joined(separator: ","))]}"#))
        case (.GET, "dead-letters") where s.count == 4:
            let limit: Int
            do { limit = try request.integer("limit") ?? 100 } catch { return refuse(error, .object(service: "Hooks")) }
            guard (1...1000).contains(limit) else {
                return refuse(.invalidParameter("limit must be 1...1000"), .object(service: "Hooks"))
            }
            var body: [UInt8] = Array(#"{"status":200,"service":"Hooks","deadLetters":["#.utf8)
            for (index, record) in node.hooks.deadLetters(hook: hook, limit: limit).enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                Self.render(record, into: &body)
            }
            body.append(contentsOf: "]}".utf8)
            return .reply(HTTPReply(body: ByteBuffer(bytes: body)))
        case (.POST, "replay") where s.count == 4:
            var ids: Set<UInt64>?
            if request.query["id"] != nil {
                let parsed = request.list("id").map { UInt64($0) }
                guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else {
                    return refuse(.invalidParameter("id must be a comma-separated list of dead-letter ids"), .object(service: "Hooks"))
                }
                ids = Set(parsed.compactMap { $0 })
            }
            let hooks = node.hooks
            let chosen = ids
            return .deferred({ answer in
                Task {
                    let count = await hooks.replay(hook: hook, ids: chosen)
                    answer(.json(#"{"status":200,"service":"Hooks","replayed":\#(count)}"#))
                }
            }, waiters: [])
        default:
            return .reply(ErrorResponses.object(status: .notFound, message: "Not Found: no such endpoint", service: "Hooks"))
        }
    }

    private static func render(_ stats: HookStats) -> String {
        let c = stats.counters
        return #"{"name":\#(JSONText.string(stats.name)),"event":"\#(stats.trigger.rawValue)","target":\#(JSONText.string(stats.target)),"#
            + #""pending":\#(stats.pending),"inFlight":\#(stats.inFlight),"deadLetters":\#(stats.deadLetters),"#
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

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
