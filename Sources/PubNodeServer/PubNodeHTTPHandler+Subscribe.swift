import NIOCore
import PubNodeCore

extension PubNodeHTTPHandler {
    /// Answers a subscribe at once (handshake, or messages already newer than the cursor) or parks it.
    func subscribe(_ plan: SubscribePlan, context: ChannelHandlerContext) {
        if plan.cursor == .zero {
            respond(plan, deliveries: [], next: plan.broker.currentTimetoken())
            return
        }
        let poll = ParkedPoll(owner: self, eventLoop: context.eventLoop)
        if let ready = plan.broker.park(poll, on: plan.subscription, after: plan.cursor) {
            respond(plan, deliveries: ready.deliveries, next: ready.next)
            return
        }
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(Int64(limits.longPollTimeoutSeconds))) {
            [weak self] in
            guard let self, let parked = self.parked, parked.poll === poll else { return }
            self.answer(poll, deliveries: [], next: parked.plan.cursor)
        }
        parked = (poll, plan, timeout)
    }

    /// A publish woke `poll` (on this event loop): answer with what is ready, or re-park if nothing is.
    func pollWoken(_ poll: ParkedPoll, sharing shared: SharedAnswers? = nil) {
        guard let parked, parked.poll === poll else { return }
        let plan = parked.plan
        if let shared, let key = sharedKey(plan), answerShared(poll, key: key, shared: shared) { return }
        let ready = plan.broker.collect(plan.subscription, after: plan.cursor)
        if !ready.deliveries.isEmpty {
            answer(poll, deliveries: ready.deliveries, next: ready.next)
            return
        }
        // Nothing newer after all (say the channel left the group): wait again. Registering before
        // reading again means a publish racing with this is either read now or wakes the poll.
        poll.rearm()
        if let ready = plan.broker.park(poll, on: plan.subscription, after: plan.cursor) {
            answer(poll, deliveries: ready.deliveries, next: ready.next)
        }
    }

    /// The sharing key for a plain single-channel subscription, nil for anything else.
    private func sharedKey(_ plan: SubscribePlan) -> SharedAnswers.Key? {
        let subscription = plan.subscription
        guard subscription.channels.count == 1, subscription.groups.isEmpty, subscription.wildcards.isEmpty,
              let head, head.method == .GET else { return nil }
        return SharedAnswers.Key(broker: ObjectIdentifier(plan.broker as AnyObject), channel: subscription.channels[0],
                                 cursor: plan.cursor, minorVersion: head.version.minor, keepAlive: keepAlive)
    }

    /// Answers from (or fills) the batch's shared responses; false when there is nothing to answer yet.
    private func answerShared(_ poll: ParkedPoll, key: SharedAnswers.Key, shared: SharedAnswers) -> Bool {
        guard let context, let parked else { return false }
        var bytes = shared.responses[key]
        if bytes == nil {
            let ready = parked.plan.broker.collect(parked.plan.subscription, after: parked.plan.cursor)
            guard !ready.deliveries.isEmpty else { return false }
            let body = SubscribeResponse.render(ready.deliveries, next: ready.next, region: parked.plan.region,
                                                allocator: context.channel.allocator)
            bytes = HTTPResponseWriter.serialize(HTTPReply(body: body), minorVersion: key.minorVersion,
                                                 keepAlive: key.keepAlive, allocator: context.channel.allocator)
            shared.responses[key] = bytes
        }
        releaseParked()
        writeSerialized(bytes!, keepAlive: key.keepAlive, context: context)
        return true
    }

    /// Answers the parked `poll`, if it is still the one parked.
    func answer(_ poll: ParkedPoll, deliveries: [Delivery], next: Timetoken) {
        guard let parked, parked.poll === poll else { return }
        releaseParked()
        respond(parked.plan, deliveries: deliveries, next: next)
    }

    /// Forgets the parked poll: cancels its timeout and unregisters it from the hub.
    func releaseParked() {
        guard let parked else { return }
        self.parked = nil
        parked.timeout.cancel()
        parked.plan.broker.cancel(parked.poll, on: parked.plan.subscription)
    }

    private func respond(_ plan: SubscribePlan, deliveries: [Delivery], next: Timetoken) {
        guard let context else { return }
        let body = SubscribeResponse.render(deliveries, next: next, region: plan.region, allocator: context.channel.allocator)
        write(HTTPReply(body: body), context: context)
    }
}
