extension Node {
    /// Sort keys of uuid and channel lists.
    public static let objectSortFields: Set<String> = ["id", "name", "updated", "status", "type"]

    /// One uuid's or channel's metadata (`GET /v2/objects/{sub}/uuids|channels/{id}`); `objectNotFound`
    /// when it has none. Runs off the caller's thread.
    public func objectMetadata(_ request: ObjectRequest) async throws(PubNodeError) -> AppObject {
        let (_, id) = try objectAccess(request, request.kind == .uuid ? .getUUIDMetadata : .getChannelMetadata, .get)
        let store = objects
        let found = try await objectWork { () throws(PubNodeError) in
            try store.object(request.kind, subscribeKey: request.subscribeKey, id: id)
        }
        guard let found else { throw .objectNotFound }
        return found
    }

    /// Sets a uuid's or channel's metadata from the request's body (PATCH): each field present
    /// replaces the stored one (null clears it), `custom` is replaced whole, unknown fields are
    /// ignored. With `If-Match`, refuses (`objectChanged`) unless the stored eTag is that one.
    /// Announces the new object on the channel named by its id.
    public func setObjectMetadata(_ request: ObjectRequest) async throws(PubNodeError) -> AppObject {
        let operation: AccessRequest.Operation = request.kind == .uuid ? .setUUIDMetadata : .setChannelMetadata
        try ObjectInput.validateID(request.id ?? "", request.kind.rawValue)
        let body = try ObjectInput.object(request.body)
        var changes: [String: String?] = [:]
        for (name, maxLength) in request.kind.settableFields {
            if let value = body[name] { changes[name] = .some(try ObjectInput.string(value, name, maxLength: maxLength)) }
        }
        let custom = try ObjectInput.custom(body["custom"], maxBytes: limits.maxObjectCustomBytes)
        let (keyset, id) = try objectAccess(request, operation, .update)
        let store = objects
        let fieldChanges = changes
        let kind = request.kind
        let now = Int64(clock.nowNanoseconds() / 1_000_000)
        let ifMatch = request.ifMatch
        let maxObjects = limits.maxObjectsPerKeyset
        let stored = try await objectWork { () throws(PubNodeError) in
            try store.update(kind, subscribeKey: request.subscribeKey, id: id, maxObjects: maxObjects) { existing throws(PubNodeError) in
                if let ifMatch, existing?.eTag != ifMatch { throw .objectChanged }
                var fields = existing?.fields ?? [:]
                for (name, value) in fieldChanges { fields[name] = value }
                let newCustom = body["custom"] == nil ? existing?.custom : custom
                return AppObject(kind: kind, id: id, fields: fields, custom: newCustom, updated: now)
            }
        }
        announce(event: "set", type: kind.rawValue, channel: id, on: keyset) { stored.render(into: &$0, include: .all, event: true) }
        return stored
    }

    /// Removes a uuid's or channel's metadata (its memberships stay, as on PubNub without
    /// referential integrity) and announces it; succeeds when there was none.
    public func removeObjectMetadata(_ request: ObjectRequest) async throws(PubNodeError) {
        let operation: AccessRequest.Operation = request.kind == .uuid ? .removeUUIDMetadata : .removeChannelMetadata
        let (keyset, id) = try objectAccess(request, operation, .delete)
        let store = objects
        let removed = try await objectWork { () throws(PubNodeError) in
            try store.remove(request.kind, subscribeKey: request.subscribeKey, id: id)
        }
        guard removed else { return }
        announce(event: "delete", type: request.kind.rawValue, channel: id, on: keyset) {
            ObjectJSON.renderOrdered([("id", .string(id))], into: &$0)
        }
    }

    /// A page of every uuid's or channel's metadata, sorted, filtered and paged by the query.
    public func allObjectMetadata(_ request: ObjectRequest) async throws(PubNodeError) -> ObjectPage<AppObject> {
        let operation: AccessRequest.Operation = request.kind == .uuid ? .getAllUUIDMetadata : .getAllChannelMetadata
        try authorize(AccessRequest(operation, subscribeKey: request.subscribeKey, uuid: request.uuid,
                                    authKey: request.authKey, signature: request.signature))
        let store = objects
        let all = try await objectWork { () throws(PubNodeError) in
            try store.objects(request.kind, subscribeKey: request.subscribeKey)
        }
        let matching = try ObjectFiltering.apply(request.query.filter, to: all, cache: filters) { $0.json }
        return try ObjectPaging.page(matching, query: request.query) { object in
            request.query.sort.map { Self.sortValue(object, $0.field) } + [object.id]
        }
    }

    /// A sort value of an object: its field, `updated` as fixed-width digits.
    static func sortValue(_ object: AppObject?, _ field: String) -> String? {
        guard let object else { return nil }
        switch field {
        case "id": return object.id
        case "updated":
            let digits = String(object.updated)
            return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
        default: return object.fields[field]
        }
    }

    /// Validates the path's id and authorizes once with `permission` on it.
    private func objectAccess(_ request: ObjectRequest, _ operation: AccessRequest.Operation,
                              _ permission: AccessRequest.Permission) throws(PubNodeError) -> (ServedKeyset, String) {
        let id = request.id ?? ""
        try ObjectInput.validateID(id, request.kind.rawValue)
        let keyset = try authorize(AccessRequest(
            operation, subscribeKey: request.subscribeKey,
            resources: [AccessRequest.Resource(request.kind == .uuid ? .uuid : .channel, id, permission)],
            uuid: request.uuid, authKey: request.authKey, signature: request.signature))
        return (keyset, id)
    }

    /// Publishes an App Context event (`e: 2`) on `channel`:
    /// `{"source":"objects","version":"2.0","event":…,"type":…,"data":…}`, when the keyset enables
    /// App Context events (`Keyset.appContextEvents`); otherwise does nothing.
    func announce(event: String, type: String, channel: String, on keyset: ServedKeyset,
                  data: (inout [UInt8]) -> Void) {
        guard keyset.appContextEvents else { return }
        var payload = Array(#"{"source":"objects","version":"2.0","event":"\#(event)","type":"\#(type)","data":"#.utf8)
        data(&payload)
        payload.append(UInt8(ascii: "}"))
        emit(.object, channel: channel, payload: payload, actor: nil, on: keyset)
    }

    /// Runs a store call on the node's read queue, so no event loop waits for SQLite.
    func objectWork<T: Sendable>(_ body: @escaping @Sendable () throws(PubNodeError) -> T) async throws(PubNodeError) -> T {
        let result: Result<T, PubNodeError> = await withCheckedContinuation { continuation in
            historyReads.async {
                continuation.resume(returning: Result { () throws(PubNodeError) -> T in try body() })
            }
        }
        return try result.get()
    }
}
