import NIOCore
import NIOHTTP1
import PubNodeCore

extension Router {
    /// App Context: `/v2/objects/{sub}/uuids[/{uuid}[/channels]]` and
    /// `/v2/objects/{sub}/channels[/{channel}[/uuids]]` (GET, PATCH, DELETE as PubNub serves them).
    func objects(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        guard s.count >= 4, s.count <= 6, let kind = s[3] == "uuids" ? ObjectKind.uuid : s[3] == "channels" ? .channel : nil,
              s.count < 6 || s[5] == (kind == .uuid ? "channels" : "uuids") else {
            return Self.noSuchEndpoint()
        }
        let node = self.node
        return answering(.objects, keyset: s[2]) { () throws(PubNodeError) in
            try node.requireKeyset(s[2])
            var built = ObjectRequest(subscribeKey: s[2], kind: kind, id: s.count >= 5 ? s[4] : nil, uuid: Self.uuid(request),
                                     authKey: request.query["auth"])
            built.signature = request.signed
            built.body = request.body.map { Array($0.readableBytesView) }
            built.ifMatch = request.headers["if-match"]
            let side: String? = s.count == 6 ? (kind == .uuid ? "channel" : "uuid") : nil
            built.query = try Self.objectQuery(request, side: side, list: s.count != 5)
            let call = built
            switch (request.method, s.count) {
            case (.GET, 4):
                return later(.objects) { () throws(PubNodeError) in
                    ObjectsResponse.list(try await node.allObjectMetadata(call), include: call.query.include)
                }
            case (.GET, 5):
                return later(.objects) { () throws(PubNodeError) in
                    ObjectsResponse.object(try await node.objectMetadata(call), include: call.query.include)
                }
            case (.PATCH, 5):
                return later(.objects) { () throws(PubNodeError) in
                    ObjectsResponse.object(try await node.setObjectMetadata(call), include: call.query.include)
                }
            case (.DELETE, 5):
                return later(.objects) { () throws(PubNodeError) in
                    try await node.removeObjectMetadata(call)
                    return .json(#"{"status":200,"data":null}"#)
                }
            case (.GET, 6):
                return later(.objects) { () throws(PubNodeError) in
                    ObjectsResponse.memberships(try await node.memberships(call), side: side!, include: call.query.include)
                }
            case (.PATCH, 6):
                return later(.objects) { () throws(PubNodeError) in
                    ObjectsResponse.memberships(try await node.setMemberships(call), side: side!, include: call.query.include)
                }
            default:
                return Self.noSuchEndpoint()
            }
        }
    }

    /// `include`, `limit`, `sort`, `start`, `end`, `count` and `filter` of an objects request.
    /// `side` names the other side of memberships (`channel`) or members (`uuid`).
    static func objectQuery(_ request: PubNubRequest, side: String?, list: Bool) throws(PubNodeError) -> ObjectQuery {
        var query = ObjectQuery()
        query.include = try ObjectInclude.parse(request.list("include"), target: side)
        guard list else { return query }
        query.limit = try request.integer("limit", default: 100, range: 1...100)
        let allowed = side.map { Node.membershipSortFields(side: $0) } ?? Node.objectSortFields
        query.sort = try ObjectSortKey.parse(request.list("sort"), allowed: allowed)
        query.start = request.query["start"].flatMap { $0.isEmpty ? nil : $0 }
        query.end = request.query["end"].flatMap { $0.isEmpty ? nil : $0 }
        if query.start != nil, query.end != nil { throw .invalidParameter("give start or end, not both") }
        query.count = try request.flag("count") ?? false || query.include.contains(.totalCount)
        query.filter = request.query["filter"].flatMap { $0.isEmpty ? nil : $0 }
        return query
    }
}

/// App Context answers in PubNub's shapes: `{"status":200,"data":…}` with, for lists,
/// `totalCount` (when asked for), `next` and `prev`.
enum ObjectsResponse {
    static func object(_ object: AppObject, include: ObjectInclude) -> HTTPReply {
        var out = Array(#"{"status":200,"data":"#.utf8)
        object.render(into: &out, include: include)
        out.append(UInt8(ascii: "}"))
        return HTTPReply(body: ByteBuffer(bytes: out))
    }

    static func list(_ page: ObjectPage<AppObject>, include: ObjectInclude) -> HTTPReply {
        paged(page) { object, out in object.render(into: &out, include: include) }
    }

    static func memberships(_ page: ObjectPage<MembershipView>, side: String, include: ObjectInclude) -> HTTPReply {
        paged(page) { view, out in
            let record = view.membership
            var members: [(String, ObjectJSON)] = []
            var target: [UInt8] = []
            if include.contains(.target), let object = view.target {
                object.render(into: &target, include: include.targetFields)
            } else {
                ObjectJSON.object(["id": .string(side == "channel" ? record.channel : record.uuid)]).render(into: &target)
            }
            if include.contains(.custom) { members.append(("custom", record.custom.map(ObjectJSON.object) ?? .null)) }
            if include.contains(.status) { members.append(("status", record.status.map(ObjectJSON.string) ?? .null)) }
            if include.contains(.type) { members.append(("type", record.type.map(ObjectJSON.string) ?? .null)) }
            members.append(("updated", .string(ObjectTime.iso(record.updated))))
            members.append(("eTag", .string(record.eTag)))
            out += Array("{\"\(side)\":".utf8) + target
            for (name, value) in members {
                out += Array(",\"\(name)\":".utf8)
                value.render(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func paged<Item>(_ page: ObjectPage<Item>, _ render: (Item, inout [UInt8]) -> Void) -> HTTPReply {
        var out = Array(#"{"status":200,"data":["#.utf8)
        for (index, item) in page.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            render(item, &out)
        }
        out.append(UInt8(ascii: "]"))
        if let total = page.totalCount { out += Array(#","totalCount":\#(total)"#.utf8) }
        if let next = page.next { out += Array(#","next":"#.utf8); JSONText.appendString(next, to: &out) }
        if let prev = page.prev { out += Array(#","prev":"#.utf8); JSONText.appendString(prev, to: &out) }
        out.append(UInt8(ascii: "}"))
        return HTTPReply(body: ByteBuffer(bytes: out))
    }
}
