import NIOCore
import NIOHTTP1
import PubNodeCore

extension PubNodeHTTPHandler {
    /// Answers a long-poll at once when messages are already newer than its cursor, or parks it.
    func poll(_ longPoll: consuming LongPoll, context: ChannelHandlerContext) {
        guard let wakeQueue else { return }
        let poll = ParkedPoll(owner: self, queue: wakeQueue, longPoll: consume longPoll)
        if let ready = Self.parkPassingFilteredOut(poll) {
            poll.longPoll.delivered(ready)
            if let key = sharedKey(poll) {
                answerAtOnce(ready, key: key, recent: wakeQueue.recentAnswers.value)
            } else {
                respond(ready)
            }
            return
        }
        guard admitParkedPoll() else {
            // Over this address's parked limit: answered at once (a late wake finds nothing parked).
            poll.longPoll.cancel(poll)
            write(ErrorResponses.reply(.tooManyRequests(retryAfter: 1), shape: .object(service: "Rate Limiter"),
                                       timetoken: router.node.time()), context: context)
            return
        }
        // The loop's clock answers it once this has passed.
        poll.deadline = context.eventLoop.now + .seconds(Int64(limits.longPollTimeoutSeconds))
        state.phase = .parked(poll)
        state.wasParked = true
        // A parked connection is answered from its wake batch's shared buffers: it keeps no spare.
        spareResponse = nil
        router.operations.gauges.pollParked()
    }

    /// A publish woke `poll` (on this event loop): answer with what is ready, or re-park if nothing is.
    /// A plain single-channel poll takes the answer another poll of the batch already made for the
    /// same key, or makes it for them; the buffers are read once either way.
    func pollWoken(_ poll: ParkedPoll, sharing shared: SharedAnswers) {
        guard state.parked === poll else { return }
        let key = sharedKey(poll)
        if let key, let kept = shared.answer(for: key) {
            answerShared(poll, with: kept, keepAlive: key.keepAlive)
            return
        }
        let ready = poll.longPoll.read(after: poll.cursor)
        if !ready.deliveries.isEmpty {
            if let key {
                answerShared(poll, with: keep(ready, for: key, in: shared), keepAlive: key.keepAlive)
            } else {
                answer(poll, with: ready)
            }
            return
        }
        // Nothing newer after all (say the channel left the group, or the filter rejected all of
        // it): wait again. Registering before reading again means a publish racing with this is
        // either read now or wakes the poll.
        if poll.longPoll.isFilteredOut(ready, after: poll.cursor) { poll.cursor = ready.next }
        poll.rearm()
        if let again = Self.parkPassingFilteredOut(poll) { answer(poll, with: again) }
    }

    /// Parks `poll`; a batch the filter rejected entirely moves its cursor and parks again
    /// (at most `maxFilteredRounds` times, then the empty batch answers with the moved cursor).
    /// Without a filter this is exactly one `park`.
    private static func parkPassingFilteredOut(_ poll: ParkedPoll) -> DeliveryBatch? {
        var rounds = 0
        while let ready = poll.longPoll.park(poll, after: poll.cursor) {
            rounds += 1
            guard poll.longPoll.isFilteredOut(ready, after: poll.cursor), rounds < maxFilteredRounds else { return ready }
            poll.cursor = ready.next
        }
        return nil
    }

    /// How many wholly filtered-out batches one park passes over before answering an empty one.
    /// Each round evaluates up to a response's worth of messages on the event loop, so this stays
    /// small: a filter that rejects more answers empty with the moved cursor, and the client polls again.
    private static let maxFilteredRounds = 4

    /// The sharing key for a plain single-channel long-poll, nil for anything else.
    private func sharedKey(_ poll: ParkedPoll) -> SharedAnswers.Key? {
        guard let shared = poll.longPoll.sharingKey, let answering = state.answering, answering.isGET
        else { return nil }
        return SharedAnswers.Key(subscribeKey: shared.subscribeKey, channel: shared.channel, cursor: poll.cursor,
                                 filter: poll.longPoll.filter.map { .init(text: $0.text) }, minorVersion: answering.minorVersion,
                                 keepAlive: keepsAlive)
    }

    /// Renders and serializes `ready` once for every poll of the batch with `key`, and keeps it.
    private func keep(_ ready: DeliveryBatch, for key: SharedAnswers.Key, in shared: SharedAnswers) -> SharedAnswers.Answer {
        let body = SubscribeResponse.render(ready, region: router.region, allocator: allocator)
        let bytes = HTTPResponseWriter.serialize(HTTPReply(body: body), minorVersion: key.minorVersion,
                                                 keepAlive: key.keepAlive, allocator: allocator)
        let answer = SharedAnswers.Answer(bytes: bytes, batch: ready)
        shared.keep(answer, for: key)
        return answer
    }

    /// Answers the parked `poll` with a shared answer's bytes, written as they are.
    private func answerShared(_ poll: ParkedPoll, with answer: SharedAnswers.Answer, keepAlive: Bool) {
        guard let context else { return }
        poll.longPoll.delivered(answer.batch)
        releaseParked()
        recordAnswer(status: 200)
        writeSerialized(answer.bytes, keepAlive: keepAlive, context: context)
    }

    /// Answers a plain single-channel poll that found `ready` at once: with the bytes this loop
    /// last wrote to a poll with the same key that read the same messages (a backlog's subscribers
    /// come back with the same cursor), or rendered now and kept for the next.
    private func answerAtOnce(_ ready: DeliveryBatch, key: SharedAnswers.Key, recent: SharedAnswers) {
        guard let context else { return }
        let answer = recent.answer(for: key, reading: ready) ?? keep(ready, for: key, in: recent)
        recordAnswer(status: 200)
        writeSerialized(answer.bytes, keepAlive: key.keepAlive, context: context)
    }

    /// Answers the parked `poll`, if it is still the one parked.
    func answer(_ poll: ParkedPoll, with batch: DeliveryBatch) {
        guard state.parked === poll else { return }
        poll.longPoll.delivered(batch)
        releaseParked()
        respond(batch)
    }

    /// Forgets the parked poll: cancels its timeout and unregisters it; the request stays current
    /// until its answer is written.
    func releaseParked() {
        guard case .parked(let poll) = state.phase else { return }
        state.phase = .answering
        router.operations.gauges.pollReleased()
        releaseParkedPoll()
        poll.longPoll.cancel(poll)
    }

    private func respond(_ batch: DeliveryBatch) {
        guard let context else { return }
        let body = SubscribeResponse.render(batch, region: router.region, allocator: allocator)
        write(HTTPReply(body: body), context: context)
    }
}
