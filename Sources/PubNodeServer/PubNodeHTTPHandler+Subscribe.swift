import NIOCore
import NIOHTTP1
import PubNodeCore

extension PubNodeHTTPHandler {
    /// Answers a long-poll at once when messages are already newer than its cursor, or parks it.
    func poll(_ longPoll: LongPoll, context: ChannelHandlerContext) {
        guard let wakeQueue else { return }
        let poll = ParkedPoll(owner: self, queue: wakeQueue)
        var longPoll = longPoll
        if let ready = Self.parkPassingFilteredOut(&longPoll, poll) {
            longPoll.delivered(ready)
            respond(ready)
            return
        }
        guard admitParkedPoll() else {
            // Over this address's parked limit: answered at once (a late wake finds nothing parked).
            longPoll.cancel(poll)
            write(ErrorResponses.reply(.tooManyRequests(retryAfter: 1), shape: .object(service: "Rate Limiter"),
                                       timetoken: router.node.time()), context: context)
            return
        }
        let deadline = context.eventLoop.now + .seconds(Int64(limits.longPollTimeoutSeconds))
        armPollTimer(for: deadline, context: context)
        state.phase = .parked(ParkedLongPoll(poll: poll, longPoll: longPoll, deadline: deadline))
        state.wasParked = true
        router.operations.gauges.pollParked()
    }

    /// A publish woke `poll` (on this event loop): answer with what is ready, or re-park if nothing is.
    func pollWoken(_ poll: ParkedPoll, sharing shared: SharedAnswers) {
        guard let parked = state.parked, parked.poll === poll else { return }
        if let key = sharedKey(parked.longPoll), answerShared(poll, key: key, shared: shared) { return }
        var longPoll = parked.longPoll
        let ready = longPoll.read()
        if !ready.deliveries.isEmpty {
            answer(poll, with: ready)
            return
        }
        // Nothing newer after all (say the channel left the group, or the filter rejected all of
        // it): wait again. Registering before reading again means a publish racing with this is
        // either read now or wakes the poll.
        if longPoll.isFilteredOut(ready) { longPoll.advance(to: ready.next) }
        poll.rearm()
        let again = Self.parkPassingFilteredOut(&longPoll, poll)
        if longPoll.cursor != parked.longPoll.cursor, case .parked(var current) = state.phase {
            current.longPoll = longPoll
            state.phase = .parked(current)
        }
        if let again { answer(poll, with: again) }
    }

    /// Parks `longPoll`; a batch the filter rejected entirely moves its cursor and parks again
    /// (at most `maxFilteredRounds` times, then the empty batch answers with the moved cursor).
    /// Without a filter this is exactly one `park`.
    private static func parkPassingFilteredOut(_ longPoll: inout LongPoll, _ poll: ParkedPoll) -> DeliveryBatch? {
        var rounds = 0
        while let ready = longPoll.park(poll) {
            rounds += 1
            guard longPoll.isFilteredOut(ready), rounds < maxFilteredRounds else { return ready }
            longPoll.advance(to: ready.next)
        }
        return nil
    }

    /// How many wholly filtered-out batches one park passes over before answering an empty one.
    /// Each round evaluates up to a response's worth of messages on the event loop, so this stays
    /// small: a filter that rejects more answers empty with the moved cursor, and the client polls again.
    private static let maxFilteredRounds = 4

    /// The sharing key for a plain single-channel long-poll, nil for anything else.
    private func sharedKey(_ longPoll: LongPoll) -> SharedAnswers.Key? {
        guard let shared = longPoll.sharingKey, let head = state.head, head.method == .GET else { return nil }
        return SharedAnswers.Key(subscribeKey: shared.subscribeKey, channel: shared.channel, cursor: longPoll.cursor,
                                 filter: longPoll.filter?.text,
                                 minorVersion: head.minorVersion, keepAlive: keepsAlive)
    }

    /// Answers from (or fills) the batch's shared responses; false when there is nothing to answer yet.
    private func answerShared(_ poll: ParkedPoll, key: SharedAnswers.Key, shared: SharedAnswers) -> Bool {
        guard let context, let parked = state.parked else { return false }
        var answer = shared.responses[key]
        if answer == nil {
            let ready = parked.longPoll.read()
            guard !ready.deliveries.isEmpty else { return false }
            let body = SubscribeResponse.render(ready, region: router.region, allocator: context.channel.allocator)
            let bytes = HTTPResponseWriter.serialize(HTTPReply(body: body), minorVersion: key.minorVersion,
                                                     keepAlive: key.keepAlive, allocator: context.channel.allocator)
            answer = (bytes, ready)
            shared.responses[key] = answer
        }
        parked.longPoll.delivered(answer!.batch)
        releaseParked()
        recordAnswer(status: 200)
        writeSerialized(answer!.bytes, keepAlive: key.keepAlive, context: context)
        return true
    }

    /// Answers the parked `poll`, if it is still the one parked.
    func answer(_ poll: ParkedPoll, with batch: DeliveryBatch) {
        guard let parked = state.parked, parked.poll === poll else { return }
        parked.longPoll.delivered(batch)
        releaseParked()
        respond(batch)
    }

    /// Forgets the parked poll: cancels its timeout and unregisters it; the request stays current
    /// until its answer is written.
    func releaseParked() {
        guard case .parked(let parked) = state.phase else { return }
        state.phase = .answering
        router.operations.gauges.pollReleased()
        releaseParkedPoll()
        parked.longPoll.cancel(parked.poll)
    }

    /// Makes sure the connection's long-poll timer fires no later than `deadline`. A timer already
    /// armed for an earlier time is kept (it re-arms itself when it fires), so a subscriber that is
    /// woken and parks again touches no timer: cancelling one costs a scan of the loop's timer heap.
    private func armPollTimer(for deadline: NIODeadline, context: ChannelHandlerContext) {
        if let timer = state.pollTimer {
            if timer.at <= deadline { return }
            timer.task.cancel()
        }
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] () -> Void in
            guard let self else { return }
            self.pollTimerFired()
        }
        state.pollTimer = (task, deadline)
    }

    /// The long-poll timer fired: answers the parked poll with its unchanged cursor if its deadline
    /// has passed, or re-arms for the deadline of the poll parked since.
    private func pollTimerFired() {
        state.pollTimer = nil
        guard let context, let parked = state.parked else { return }
        if parked.deadline > context.eventLoop.now {
            armPollTimer(for: parked.deadline, context: context)
        } else {
            answer(parked.poll, with: DeliveryBatch(deliveries: [], next: parked.longPoll.cursor))
        }
    }

    /// Stops the connection's long-poll timer (the connection is going away).
    func stopPollTimer() {
        state.pollTimer?.task.cancel()
        state.pollTimer = nil
    }

    private func respond(_ batch: DeliveryBatch) {
        guard let context else { return }
        let body = SubscribeResponse.render(batch, region: router.region, allocator: context.channel.allocator)
        write(HTTPReply(body: body), context: context)
    }
}
