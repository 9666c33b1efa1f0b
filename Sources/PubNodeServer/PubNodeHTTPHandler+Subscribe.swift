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
    func pollWoken(_ poll: ParkedPoll) {
        guard let parked, parked.poll === poll else { return }
        let plan = parked.plan
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
