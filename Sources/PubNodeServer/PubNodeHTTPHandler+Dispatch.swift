import NIOCore
import NIOHTTP1
import PubNodeCore

extension PubNodeHTTPHandler {
    /// Routes a complete request: the per-client limits first, then a repeated long-poll from the
    /// kept subscribe (`RepeatedSubscribe`), a repeated publish from the kept one
    /// (`RepeatedPublish`), a publish read off its target (`PublishTarget`), or else the decoded
    /// target through the router.
    func dispatch(head: RequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        if let refusal = clientRefusal(head) {
            write(refusal, context: context)
            return
        }
        if head.isHEAD, !head.targets("/time/") {
            // HEAD must not change anything; only the time endpoint is answered without a body.
            write(ErrorResponses.object(status: .methodNotAllowed, message: "HEAD is answered for /time/0 only"),
                  context: context)
            return
        }
        if head.isGET, let kept = state.lastSubscribe, let cursor = kept.cursor(repeatedBy: head.target) {
            repoll(kept, cursor: cursor, context: context)
            return
        }
        let publishable = head.isGET && !router.metricsListener
        if publishable, let kept = state.lastPublish,
           let (prepared, payload) = kept.repeated(by: head.target, node: router.node) {
            act(on: router.publish(prepared, payload: payload), context: context)
            return
        }
        // Past the repeats, the target is read as a string (built once here).
        let uri = head.uri
        if publishable, let (publish, message) = PublishTarget.read(uri) {
            state.lastPublish = RepeatedPublish(target: uri, message: message, request: publish)
            act(on: router.publish(publish), context: context)
            return
        }
        var request: PubNubRequest
        do {
            request = try PubNubRequest(method: head.isHEAD ? .GET : head.method, uri: uri, body: body)
            if head.targets("/v1/blocks/") || head.targets("/v1/admin/") || head.targets("/metrics") {
                for (name, value) in head.fields { request.headers[name.lowercased()] = value }
                request.peerAddress = context.channel.remoteAddress?.ipAddress
            }
            if head.targets("/v2/objects/"), let match = head.field("if-match") {
                request.headers["if-match"] = match
            }
        } catch {
            let publishing = head.targets("/publish/") || head.targets("/signal/")
            let shape: ErrorResponses.Shape = publishing ? .publish : .object(service: "Balancer")
            write(ErrorResponses.reply(error, shape: shape, timetoken: router.node.time()), context: context)
            return
        }
        // A subscribe that does not decode or prepare is answered (refused) by the router, and not kept.
        if let decoded = router.decodedSubscribe(request), let prepared = try? router.node.prepare(decoded) {
            var presence: PresenceReceipt?
            let action = router.subscribe(prepared, cursor: decoded.cursor, presence: &presence)
            let kept = RepeatedSubscribe(target: uri, prepared: prepared)
            kept?.presence = presence
            state.lastSubscribe = kept
            act(on: action, keptBy: kept, context: context)
        } else {
            act(on: router.route(request), context: context)
        }
    }

    /// A long-poll repeating the connection's kept subscribe, from `cursor`: its last parked poll
    /// parks again when its long-poll still serves (see `RepeatedSubscribe.poll`), in place when
    /// nothing else holds it any longer, else as a new parked poll of the same long-poll.
    private func repoll(_ kept: RepeatedSubscribe, cursor: Timetoken, context: ChannelHandlerContext) {
        guard let wakeQueue, kept.poll != nil else {
            act(on: router.subscribe(kept.prepared, cursor: cursor, presence: &kept.presence), keptBy: kept,
                context: context)
            return
        }
        if let action = subscribe(kept, cursor: cursor, repeating: kept.poll!) {
            // Refused, or a new long-poll (which `act` keeps): the last one serves no more.
            kept.poll = nil
            act(on: action, keptBy: kept, context: context)
            return
        }
        // Unique: no publisher and no answer queue still holds it (none can take it anew: it is
        // registered nowhere), so no wake from its last park can reach it again.
        if isKnownUniquelyReferenced(&kept.poll) {
            kept.poll!.restart(from: cursor)
        } else {
            kept.poll = ParkedPoll(owner: self, queue: wakeQueue, longPoll: kept.poll!.longPoll, cursor: cursor)
        }
        park(kept.poll!, context: context)
    }

    /// The router's action for a poll of `kept` repeating `last`'s long-poll; nil when it serves
    /// again. Apart from `repoll` so that the long-poll is read in place, from the constant of the
    /// parked poll (through `kept`'s variable it would be copied), and `last` is let go of before
    /// `repoll` asks whether anything else holds it.
    private func subscribe(_ kept: RepeatedSubscribe, cursor: Timetoken, repeating last: ParkedPoll) -> RouteAction? {
        router.subscribe(kept.prepared, cursor: cursor, presence: &kept.presence, repeating: last.longPoll)
    }

    /// Carries out what the router decided for the current request; a long-poll of the
    /// connection's kept subscribe is remembered there (`kept`).
    func act(on action: consuming RouteAction, keptBy kept: RepeatedSubscribe? = nil, context: ChannelHandlerContext) {
        // Consumed: a long-poll moves on into its parked poll without a copy.
        switch consume action {
        case .reply(let reply):
            write(reply, context: context)
        case .sent(let timetoken):
            writeSent(timetoken, context: context)
        case .poll(let longPoll):
            guard let wakeQueue else { return }
            let poll = ParkedPoll(owner: self, queue: wakeQueue, longPoll: consume longPoll)
            kept?.poll = poll
            park(poll, context: context)
        case .deferred(let start):
            state.phase = .answering
            let loop = context.eventLoop
            let handler = NIOLoopBound(self, eventLoop: loop)
            start { reply in
                loop.execute { handler.value.answerDeferred(reply) }
            }
        }
    }

    /// Writes a deferred answer on this loop, if the connection is still there to take it.
    func answerDeferred(_ reply: HTTPReply) {
        guard case .answering = state.phase, let context, context.channel.isActive else { return }
        write(reply, context: context)
    }
}
