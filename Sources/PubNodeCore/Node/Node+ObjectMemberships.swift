extension Node {
    /// Sort keys of membership lists (`side` is `channel`) and member lists (`side` is `uuid`).
    public static func membershipSortFields(side: String) -> Set<String> {
        Set(["updated", "status", "type"] + ["id", "name", "updated", "status", "type"].map { "\(side).\($0)" })
    }

    /// A page of a uuid's memberships (`request.kind == .uuid`) or a channel's members (`.channel`).
    public func memberships(_ request: ObjectRequest) async throws(PubNodeError) -> ObjectPage<MembershipView> {
        let (_, id) = try membershipAccess(request, changes: nil)
        return try await membershipPage(request, id: id)
    }

    /// Sets and deletes memberships (PATCH with `{"set":[…],"delete":[…]}`): each `set` item names
    /// the other side (`{"channel":{"id":…}}` for a uuid, `{"uuid":{"id":…}}` for a channel) with
    /// optional `custom`, `status` and `type`, replacing a record of the same pair; each `delete`
    /// item names one to remove. Announces every change on the channel and on the uuid's channel,
    /// then answers the page the query selects.
    public func setMemberships(_ request: ObjectRequest) async throws(PubNodeError) -> ObjectPage<MembershipView> {
        try ObjectInput.validateID(request.id ?? "", request.kind.rawValue)
        let body = try ObjectInput.object(request.body)
        let other = request.kind == .uuid ? "channel" : "uuid"
        let now = Int64(clock.nowNanoseconds() / 1_000_000)
        let id = request.id ?? ""
        var set: [AppMembership] = []
        var deleted: [String] = []
        for (list, isSet) in [("set", true), ("delete", false)] {
            guard let value = body[list] else { continue }
            guard case .array(let items) = value else { throw .invalidParameter("\(list) must be an array") }
            for item in items {
                guard case .string(let target)? = item[other]?["id"] else {
                    throw .invalidParameter("each \(list) item needs \(other).id, a string")
                }
                try ObjectInput.validateID(target, "\(other).id")
                if isSet {
                    let custom = try ObjectInput.custom(item["custom"], maxBytes: limits.maxObjectCustomBytes)
                    let status = try item["status"].flatMap { v throws(PubNodeError) in try ObjectInput.string(v, "status", maxLength: 50) }
                    let type = try item["type"].flatMap { v throws(PubNodeError) in try ObjectInput.string(v, "type", maxLength: 50) }
                    let (uuid, channel) = request.kind == .uuid ? (id, target) : (target, id)
                    set.removeAll { ($0.uuid, $0.channel) == (uuid, channel) }
                    set.append(AppMembership(uuid: uuid, channel: channel, status: status, type: type, custom: custom,
                                             updated: now))
                } else if !deleted.contains(target) {
                    deleted.append(target)
                }
            }
        }
        guard set.count + deleted.count <= ObjectInput.maxChangesPerRequest else {
            throw .invalidParameter("at most \(ObjectInput.maxChangesPerRequest) memberships may change in one request")
        }
        let targets = set.map { request.kind == .uuid ? $0.channel : $0.uuid } + deleted
        let (keyset, _) = try membershipAccess(request, changes: targets)
        let pairs = deleted.map { request.kind == .uuid ? (uuid: id, channel: $0) : (uuid: $0, channel: id) }
        let store = objects
        let records = set
        let (maxPerObject, maxPerKeyset) = (limits.maxMembershipsPerObject, limits.maxMembershipsPerKeyset)
        let removed = try await objectWork { () throws(PubNodeError) in
            try store.applyMemberships(subscribeKey: request.subscribeKey, set: records, delete: pairs,
                                       maxPerObject: maxPerObject, maxPerKeyset: maxPerKeyset)
        }
        for record in removed {
            announceMembership("delete", record, on: keyset) { out in
                ObjectJSON.renderOrdered([("channel", .object(["id": .string(record.channel)])),
                                          ("uuid", .object(["id": .string(record.uuid)]))], into: &out)
            }
        }
        for record in set { announceMembership("set", record, on: keyset) { record.renderEvent(into: &$0) } }
        return try await membershipPage(request, id: id)
    }

    private func announceMembership(_ event: String, _ record: AppMembership, on keyset: ServedKeyset,
                                    data: (inout [UInt8]) -> Void) {
        announce(event: event, type: "membership", channel: record.channel, on: keyset, data: data)
        if record.uuid != record.channel {
            announce(event: event, type: "membership", channel: record.uuid, on: keyset, data: data)
        }
    }

    /// Reads, joins with the other side's objects, filters and pages.
    private func membershipPage(_ request: ObjectRequest, id: String) async throws(PubNodeError) -> ObjectPage<MembershipView> {
        let store = objects
        let forUUID = request.kind == .uuid
        let targetKind: ObjectKind = forUUID ? .channel : .uuid
        let views = try await objectWork { () throws(PubNodeError) in
            let records = try store.memberships(subscribeKey: request.subscribeKey, uuid: forUUID ? id : nil,
                                                channel: forUUID ? nil : id)
            var views: [MembershipView] = []
            views.reserveCapacity(records.count)
            for record in records {
                let target = try store.object(targetKind, subscribeKey: request.subscribeKey,
                                              id: forUUID ? record.channel : record.uuid)
                views.append(MembershipView(membership: record, target: target))
            }
            return views
        }
        let side = forUUID ? "channel" : "uuid"
        let matching = try ObjectFiltering.apply(request.query.filter, to: views, cache: filters) { $0.json(side: side) }
        return try ObjectPaging.page(matching, query: request.query) { view in
            let targetID = forUUID ? view.membership.channel : view.membership.uuid
            return request.query.sort.map { key -> String? in
                if key.field.hasPrefix(side + ".") {
                    let field = String(key.field.dropFirst(side.count + 1))
                    return field == "id" ? targetID : Self.sortValue(view.target, field)
                }
                switch key.field {
                case "status": return view.membership.status
                case "type": return view.membership.type
                default:
                    let digits = String(view.membership.updated)
                    return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
                }
            } + [targetID]
        }
    }

    /// Validates the path's id and authorizes once: listing needs `get` on the uuid or channel;
    /// changing a uuid's memberships `update` on it and `join` on each channel named; changing a
    /// channel's members `manage` on it.
    private func membershipAccess(_ request: ObjectRequest, changes targets: [String]?)
        throws(PubNodeError) -> (ServedKeyset, String) {
        let id = request.id ?? ""
        try ObjectInput.validateID(id, request.kind.rawValue)
        let kind: AccessRequest.ResourceKind = request.kind == .uuid ? .uuid : .channel
        let operation: AccessRequest.Operation
        var resources: [AccessRequest.Resource]
        switch (request.kind, targets) {
        case (.uuid, nil): (operation, resources) = (.getMemberships, [.init(kind, id, .get)])
        case (.channel, nil): (operation, resources) = (.getMembers, [.init(kind, id, .get)])
        case (.uuid, let targets?):
            operation = .setMemberships
            resources = [.init(kind, id, .update)] + targets.map { .init(.channel, $0, .join) }
        case (.channel, _?): (operation, resources) = (.setMembers, [.init(kind, id, .manage)])
        }
        let keyset = try authorize(AccessRequest(operation, subscribeKey: request.subscribeKey, resources: resources,
                                                 uuid: request.uuid, authKey: request.authKey, signature: request.signature))
        return (keyset, id)
    }
}

extension MembershipView {
    /// The membership as served with everything included (the other side as `side`), for filters.
    public func json(side: String) -> ObjectJSON {
        var members: [String: ObjectJSON] = [
            side: target?.json ?? .object(["id": .string(side == "channel" ? membership.channel : membership.uuid)]),
            "updated": .string(ObjectTime.iso(membership.updated)), "eTag": .string(membership.eTag),
        ]
        members["custom"] = membership.custom.map(ObjectJSON.object) ?? .null
        members["status"] = membership.status.map(ObjectJSON.string) ?? .null
        members["type"] = membership.type.map(ObjectJSON.string) ?? .null
        return .object(members)
    }
}
