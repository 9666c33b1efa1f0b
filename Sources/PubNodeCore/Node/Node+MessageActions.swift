extension Node {
    /// Most actions in one page of `GET /v1/message-actions` (PubNub's limit).
    public static let maxActionsPerPage = 100

    /// Adds a message action and announces it to the channel's subscribers (`e: 3`, `added`).
    /// Needs `write` on the channel. Runs the store call off the caller's thread.
    public func addMessageAction(_ request: MessageActionRequest) async throws(PubNodeError) -> MessageAction {
        guard case .add(let messageTimetoken, let type, let value) = request.action else {
            throw .invalidParameter("not an add request")
        }
        let (keyset, uuid) = try actionAccess(.addMessageAction, request, permission: .write, messageTimetoken: messageTimetoken)
        try Self.validateAction(type: type, value: value)
        // Kept as long as the keyset keeps a message stored now: the retention from the moment it is added.
        let policy = history?.policy(request.subscribeKey)
        let actionTimetoken = clock.next()
        let action = MessageAction(
            subscribeKey: request.subscribeKey, channel: request.channel, messageTimetoken: messageTimetoken,
            actionTimetoken: actionTimetoken, type: type, value: value, uuid: uuid,
            expiresAtNanoseconds: policy?.expiry(publishedAt: clock.nowNanoseconds(), ttlHours: nil))
        let (store, limit, now) = (messageActions, limits.maxActionsPerMessage, clock.nowNanoseconds())
        let outcome = try await readHistory { () throws(PubNodeError) in
            do throws(HistoryError) { return try store.add(action, limit: limit, now: now) } catch { throw .storageFailed(error.description) }
        }
        switch outcome {
        case .added: break
        case .duplicate: throw .conflict("Action Already Added")
        case .full: throw .rejected("Message already holds the most actions allowed (\(limit))")
        case .storeFull: throw .storageFailed("the node holds as many message actions as it may keep in memory")
        }
        emit(.messageAction, channel: action.channel, payload: action.eventPayload("added"), actor: uuid, on: keyset)
        return action
    }

    /// Removes a message action its caller added and announces it (`e: 3`, `removed`). Needs
    /// `delete` on the channel. Runs the store call off the caller's thread.
    public func removeMessageAction(_ request: MessageActionRequest) async throws(PubNodeError) {
        guard case .remove(let messageTimetoken, let actionTimetoken) = request.action else {
            throw .invalidParameter("not a remove request")
        }
        let (keyset, uuid) = try actionAccess(.removeMessageAction, request, permission: .delete,
                                              messageTimetoken: messageTimetoken)
        guard Self.isStorable(actionTimetoken) else {
            throw .invalidParameter("action timetoken must be a positive integer timetoken")
        }
        let (store, now) = (messageActions, clock.nowNanoseconds())
        let outcome = try await readHistory { () throws(PubNodeError) in
            do throws(HistoryError) {
                return try store.remove(subscribeKey: request.subscribeKey, channel: request.channel,
                                        messageTimetoken: messageTimetoken, actionTimetoken: actionTimetoken,
                                        uuid: uuid, now: now)
            } catch { throw .storageFailed(error.description) }
        }
        switch outcome {
        case .removed(let action):
            emit(.messageAction, channel: action.channel, payload: action.eventPayload("removed"), actor: uuid, on: keyset)
        case .notFound: throw .rejected("No matching message actions to delete")
        case .wrongUUID: throw .rejected("Not deleting message action: wrong uuid specified")
        }
    }

    /// A page of a channel's message actions: the newest `limit` in the range, oldest first. Needs
    /// `read` on the channel. Runs the store call off the caller's thread.
    public func messageActions(_ query: MessageActionQuery) async throws(PubNodeError) -> MessageActionPage {
        let keyset = try servedKeyset(query.subscribeKey)
        try Self.validateActionChannel(query.channel)
        guard (1...Self.maxActionsPerPage).contains(query.limit) else {
            throw .invalidParameter("limit must be between 1 and \(Self.maxActionsPerPage) (got \(query.limit))")
        }
        try authorize(AccessRequest(.getMessageActions, subscribeKey: query.subscribeKey,
                                    resources: .channels([query.channel], .read), uuid: query.uuid,
                                    authKey: query.authKey, signature: query.signature), on: keyset)
        let (store, now) = (messageActions, clock.nowNanoseconds())
        let found = try await readHistory { () throws(PubNodeError) in
            do throws(HistoryError) {
                return try store.actions(subscribeKey: query.subscribeKey, channel: query.channel, range: query.range,
                                         limit: query.limit + 1, now: now)
            } catch { throw .storageFailed(error.description) }
        }
        let more = found.count > query.limit
        return MessageActionPage(actions: more ? Array(found.dropFirst()) : found, more: more)
    }

    /// Purges the actions of messages that expired (the history expiry sweep); returns how many.
    @discardableResult
    public func sweepMessageActions(chunk: Int = 10_000) async throws(PubNodeError) -> Int {
        let (store, now) = (messageActions, clock.nowNanoseconds())
        return try await readHistory { () throws(PubNodeError) in
            var total = 0
            while true {
                let removed: Int
                do throws(HistoryError) { removed = try store.expire(now: now, limit: chunk) } catch { throw .storageFailed(error.description) }
                total += removed
                if removed < chunk { return total }
            }
        }
    }

    /// Validates the keyset, channel, uuid and message timetoken, then authorizes once.
    private func actionAccess(_ operation: AccessRequest.Operation, _ request: MessageActionRequest,
                              permission: AccessRequest.Permission, messageTimetoken: Timetoken)
        throws(PubNodeError) -> (ServedKeyset, String) {
        let keyset = try servedKeyset(request.subscribeKey)
        try Self.validateActionChannel(request.channel)
        guard let uuid = request.uuid, !uuid.isEmpty else { throw .invalidParameter("uuid is required") }
        guard uuid.utf8.count <= NameRules.maxLength else { throw .invalidParameter("uuid is too long") }
        guard Self.isStorable(messageTimetoken) else {
            throw .invalidParameter("message timetoken must be a positive integer timetoken")
        }
        try authorize(AccessRequest(operation, subscribeKey: request.subscribeKey,
                                    resources: .channels([request.channel], permission), uuid: uuid,
                                    authKey: request.authKey, signature: request.signature), on: keyset)
        return (keyset, uuid)
    }

    /// A concrete, writable channel name (no wildcard, no presence channel: `validateWritable` refuses both).
    static func validateActionChannel(_ channel: String) throws(PubNodeError) {
        do { try NameRules.validateWritable(channel) } catch { throw .invalidChannel(channel, error) }
    }

    /// A non-empty `type` of at most 15 characters and a `value` of at most 1,024 bytes.
    static func validateAction(type: String, value: String) throws(PubNodeError) {
        guard !type.isEmpty else { throw .invalidParameter("type must be a non-empty string") }
        guard type.count <= MessageAction.maxTypeLength else {
            throw .invalidParameter("type must be at most \(MessageAction.maxTypeLength) characters")
        }
        guard value.utf8.count <= MessageAction.maxValueBytes else {
            throw .invalidParameter("value must be at most \(MessageAction.maxValueBytes) bytes")
        }
    }

    /// A timetoken a store can hold: positive and within a signed 64-bit integer.
    static func isStorable(_ timetoken: Timetoken) -> Bool {
        timetoken.rawValue > 0 && timetoken.rawValue <= HistoryRange.maxTimetoken
    }
}
