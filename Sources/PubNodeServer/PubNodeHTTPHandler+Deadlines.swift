import NIOCore
import NIOHTTP1
import PubNodeCore

/// The connection's two clocks, kept by the handler itself so no other handler sits in the
/// pipeline and no clock is read per request:
/// - **idle**: a connection silent for `idleConnectionSeconds` (nothing read, no answer written) is
///   closed unless an answer is outstanding. Its event loop's `LoopClock` runs the check every
///   quarter of that time (rounded up to whole seconds) and counts quiet checks; activity only sets
///   a flag (connecting counts as activity). The connection closes after at least its idle time of
///   silence and at most two check periods more (between one and one and a quarter idle times
///   when the quarter is whole seconds).
/// - **arrival**: a request may take `requestTimeoutSeconds` from its first byte to its last, so a
///   client cannot hold a connection by dripping a byte now and then; a late one is answered 408.
///   Only a read that leaves a request unfinished reads the clock and arms the single check; a
///   request that arrives whole in one read (nearly all of them) costs nothing.
///
/// `active` and `arrivingSince` are set and read on every request, the rest rarely: they come first.
struct ConnectionClocks {
    /// Something was read or answered since the last idle check.
    var active = true
    /// When the request now arriving sent its first byte; nil between requests.
    var arrivingSince: NIODeadline?
    /// Idle checks in a row that found no activity.
    var quietChecks = 0
    /// The one pending arrival check, if armed.
    var arrivalCheck: Scheduled<Void>?

    /// Idle checks per idle time.
    static let checksPerIdleTime = 4
    /// How long a refused connection keeps reading (and dropping) before it is closed.
    static let linger = TimeAmount.seconds(2)
}

extension PubNodeHTTPHandler {
    /// Joins the event loop's clock (once the connection is active; a connection refused and
    /// closed while being admitted never joins).
    func startClocks(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        clocks.active = true
        wakeQueue?.clock.add(self)
    }

    /// Stops both clocks (the connection is going away).
    func stopClocks() {
        wakeQueue?.clock.remove(self)
        clocks.arrivalCheck?.cancel()
        clocks.arrivalCheck = nil
    }

    /// The loop's clock ticked: answers a parked long-poll whose deadline has passed, and checks
    /// for silence when it is time to.
    func clockTicked(now: NIODeadline, idleCheck: Bool) {
        guard clockSlot != nil, context != nil else { return }
        if let parked = state.parked, parked.deadline <= now {
            answer(parked, with: DeliveryBatch(deliveries: [], next: parked.cursor))
        }
        if idleCheck { checkIdle() }
    }

    private func checkIdle() {
        guard let context else { return }
        if clocks.active {
            clocks.active = false
            clocks.quietChecks = 0
            return
        }
        clocks.quietChecks += 1
        // Quiet since the last check: its spare response buffer is let go until it answers again.
        spareResponse = nil
        if let clock = wakeQueue?.clock, clocks.quietChecks >= clock.quietChecksBeforeClose, !state.isAwaitingAnswer {
            // Silent for longer than a long-poll lasts: a stalled or abandoned connection.
            context.close(promise: nil)
        }
    }

    /// After a read: starts the arrival clock when it left a request unfinished.
    func trackArrival(context: ChannelHandlerContext) {
        guard parser.hasUnfinishedRequest else {
            clocks.arrivingSince = nil
            return
        }
        guard clocks.arrivingSince == nil else { return }
        let now = context.eventLoop.now
        clocks.arrivingSince = now
        armArrivalCheck(at: now + .seconds(Int64(limits.requestTimeoutSeconds)), context: context)
    }

    private func armArrivalCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
        guard clocks.arrivalCheck == nil else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        clocks.arrivalCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            handler.value.clocks.arrivalCheck = nil
            handler.value.expireIfLate()
        }
    }

    /// Answers 408 and closes when the request now arriving has taken longer than allowed; re-arms
    /// for a later request otherwise.
    private func expireIfLate() {
        guard let context, context.channel.isActive, !state.closing, let since = clocks.arrivingSince else { return }
        if case .discarding = state.phase { return } // already refused
        let timeout = TimeAmount.seconds(Int64(limits.requestTimeoutSeconds))
        guard context.eventLoop.now - since >= timeout else {
            armArrivalCheck(at: since + timeout, context: context)
            return
        }
        guard !state.isAwaitingAnswer else {
            // Bytes behind an outstanding answer: nothing can be said in order.
            context.close(promise: nil)
            return
        }
        clocks.arrivingSince = nil
        state.phase = .discarding
        write(ErrorResponses.object(status: .requestTimeout, message: "Request not received in time"),
              context: context, close: true)
    }

    /// Closes after a refusal is written: output first, then, after a moment of reading and
    /// dropping, the whole connection, so a client still sending reads the refusal instead of a
    /// reset.
    func lingeringClose(context: ChannelHandlerContext) {
        context.close(mode: .output, promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.assumeIsolated().scheduleTask(in: ConnectionClocks.linger) { bound.value.close(promise: nil) }
    }
}
