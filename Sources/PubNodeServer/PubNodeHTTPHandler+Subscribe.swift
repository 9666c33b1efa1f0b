import NIOCore
import NIOHTTP1
import PubNodeCore

extension PubNodeHTTPHandler {
    /// Answers a long-poll when messages are already newer than its cursor, or parks it.
    ///
    /// A plain single-channel poll that finds messages joins its event loop's answer queue
    /// (`LoopWakeQueue`), which runs once the loop has handled everything else it read in this
    /// turn, rather than being answered at once: a publish read in the same turn then joins the
    /// answer, the polls of the turn share one rendering, and under load a publisher's request is
    /// reached after the turn's polls have been read, not after each of them has also been
    /// answered (see
    /// `Docs/architecture.md`, "Polls that find messages").
    ///
    /// Without a filter such a poll only asks whether anything is buffered after its cursor: its
    /// chunk reads the messages, once.
    func park(_ poll: ParkedPoll, context: ChannelHandlerContext) {
        noteRepeatedReads()
        let shares = sharesAnswers(poll)
        if shares, poll.longPoll.filter == nil {
            if poll.longPoll.parkUnlessReady(poll, after: poll.cursor) {
                queueAnswer(poll)
            } else {
                settle(poll, context: context)
            }
            return
        }
        if let ready = Self.parkPassingFilteredOut(poll) {
            if !ready.deliveries.isEmpty, shares {
                queueAnswer(poll)
            } else {
                poll.longPoll.delivered(ready)
                respond(ready)
            }
            return
        }
        settle(poll, context: context)
    }

    /// Hands `poll`, which found messages and is registered nowhere, to its loop's answer queue.
    private func queueAnswer(_ poll: ParkedPoll) {
        poll.isDeferred = true
        state.phase = .parked(poll)
        poll.wake()
    }

    /// Keeps `poll`, registered on what it listens to and holding nothing yet, parked until a
    /// publish wakes it or its deadline passes; over this address's parked limit it is refused.
    private func settle(_ poll: ParkedPoll, context: ChannelHandlerContext) {
        guard admitParkedPoll() else {
            // Over this address's parked limit: answered at once (a late wake finds nothing parked).
            poll.longPoll.cancel(poll)
            state.phase = .answering
            write(ErrorResponses.reply(.tooManyRequests(retryAfter: 1), shape: .object(service: "Rate Limiter"),
                                       timetoken: router.node.time()), context: context)
            return
        }
        // The loop's clock answers it once this has passed.
        poll.deadline = context.eventLoop.now + .seconds(Int64(limits.longPollTimeoutSeconds))
        if let clockSlot { wakeQueue?.clock.schedule(slot: clockSlot, at: poll.deadline) }
        state.phase = .parked(poll)
        state.wasParked = true
        // A parked connection is answered from its chunk's shared buffers: it keeps no spare.
        spareResponse = nil
        parkedPolls?.add(1)
    }

    /// A publish woke `poll`, or its answer queue reached it (on this event loop): answer with what
    /// is ready, or re-park if nothing is.
    /// A plain single-channel poll takes the answer another poll of its chunk already made for the
    /// same key, or makes it for them; the buffers are read once either way.
    func pollWoken(_ poll: ParkedPoll, sharing shared: SharedAnswers) {
        guard state.parked === poll else { return }
        let key = sharedKey(poll)
        if let key, let kept = shared.answer(for: key) {
            answerShared(poll, with: kept, keepAlive: key.keepAlive, in: shared)
            return
        }
        let ready = poll.longPoll.read(after: poll.cursor)
        if !ready.deliveries.isEmpty {
            if let key, let channel = poll.longPoll.sharedChannel {
                answerShared(poll, with: keep(ready, for: key, in: shared, channel: channel), keepAlive: key.keepAlive,
                             in: shared)
            } else {
                answer(poll, with: ready, woken: true)
            }
            return
        }
        // Nothing newer after all (say the channel left the group, or the filter rejected all of
        // it): wait again. Registering before reading again means a publish racing with this is
        // either read now or wakes the poll.
        if poll.longPoll.isFilteredOut(ready, after: poll.cursor) { poll.cursor = ready.next }
        // Woken by its keyset's deletion: parked again it would wait out its deadline where no
        // publish looks. Answered now, with nothing; the client's next poll is refused.
        guard poll.longPoll.isServed else {
            answer(poll, with: DeliveryBatch(deliveries: [], next: poll.cursor), woken: true)
            return
        }
        poll.rearm()
        if let again = Self.parkPassingFilteredOut(poll) {
            answer(poll, with: again, woken: true)
        } else if poll.isDeferred, let context {
            // What it found is gone (a channel's buffer dropped while it waited in the queue):
            // now a poll like any that found nothing.
            poll.isDeferred = false
            settle(poll, context: context)
        }
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

    /// Whether `poll` is a plain single-channel long-poll, which `sharedKey` gives a key (told
    /// without building it). Told by the channel state its long-poll keeps, which a broker gives
    /// for a subscription's one channel only: the subscription's name list is not read.
    private func sharesAnswers(_ poll: ParkedPoll) -> Bool {
        poll.longPoll.sharedChannelID != nil && state.answering?.isGET == true
    }

    /// The sharing key for a plain single-channel long-poll, nil for anything else.
    private func sharedKey(_ poll: ParkedPoll) -> SharedAnswers.Key? {
        guard let channel = poll.longPoll.sharedChannelID, let answering = state.answering, answering.isGET
        else { return nil }
        return SharedAnswers.Key(channelID: channel, cursor: poll.cursor,
                                 filter: poll.longPoll.filter.map { .init(text: $0.text) }, minorVersion: answering.minorVersion,
                                 keepAlive: keepsAlive)
    }

    /// Renders and serializes `ready` once for every poll of the chunk with `key`, and keeps it.
    private func keep(_ ready: DeliveryBatch, for key: SharedAnswers.Key, in shared: SharedAnswers,
                      channel: ChannelState) -> SharedAnswers.Answer {
        let body = SubscribeResponse.render(ready, region: router.region, allocator: allocator)
        let bytes = HTTPResponseWriter.serialize(HTTPReply(body: body), minorVersion: key.minorVersion,
                                                 keepAlive: key.keepAlive, allocator: allocator)
        let answer = SharedAnswers.Answer(bytes: bytes, batch: ready, channel: channel)
        shared.keep(answer, for: key)
        return answer
    }

    /// Answers the parked `poll` with a shared answer's bytes, written as they are, counted in
    /// `shared`'s tally.
    private func answerShared(_ poll: ParkedPoll, with answer: SharedAnswers.Answer, keepAlive: Bool,
                              in shared: SharedAnswers) {
        guard let context else { return }
        poll.longPoll.delivered(answer.batch, into: &shared.tally)
        releaseParked(woken: true)
        recordAnswer(status: 200)
        writeSerialized(answer.bytes, keepAlive: keepAlive, context: context)
    }

    /// Answers the parked `poll`, if it is still the one parked; `woken` when a wake led to the
    /// answer (see `releaseParked(woken:)`).
    func answer(_ poll: ParkedPoll, with batch: DeliveryBatch, woken: Bool = false) {
        guard state.parked === poll else { return }
        poll.longPoll.delivered(batch)
        releaseParked(woken: woken)
        respond(batch)
    }

    /// Forgets the parked poll: cancels its timeout and unregisters it; the request stays current
    /// until its answer is written. `woken`: the answer follows a wake (`pollWoken`), after which a
    /// one-channel poll is registered nowhere: the wake took it off its channel, and a park there
    /// that found messages did not register it (`LongPoll.release(woken:)`; a deferred poll, never
    /// registered, releases nothing either way). A deadline, a closed connection or a refusal
    /// cancels it everywhere.
    func releaseParked(woken: Bool = false) {
        guard case .parked(let poll) = state.phase else { return }
        state.phase = .answering
        // A poll waiting only for its answer queue was never registered nor counted.
        guard !poll.isDeferred else { return }
        parkedPolls?.add(-1)
        releaseParkedPoll()
        if woken { poll.longPoll.release(woken: poll) } else { poll.longPoll.cancel(poll) }
    }

    private func respond(_ batch: DeliveryBatch) {
        guard let context else { return }
        let body = SubscribeResponse.render(batch, region: router.region, allocator: allocator)
        write(HTTPReply(body: body), context: context)
    }
}
