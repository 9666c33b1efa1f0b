import NIOCore
import NIOHTTP1
import PubNodeCore

/// One connection's request/answer state: the handler's single source of truth for where the
/// current request stands (compare NIO's `HTTPServerPipelineHandler` and Hummingbird's connection
/// state machine).
///
/// Invariants: at most one request is in progress; parts of a request that arrive while an answer
/// is outstanding (`parked`, `answering`) or while earlier parts are queued wait in `queued`, in
/// order, so answers go out in request order; once `draining` is set no new request is started
/// and the connection closes after the answer in progress.
struct ConnectionState {
    /// Where the current request stands.
    enum Phase {
        /// Waiting for a request head.
        case idle
        /// Head read; collecting the body.
        case receiving(body: ByteBuffer?)
        /// The request was refused while arriving (too large, malformed): the rest of it is
        /// ignored and the connection closes after the refusal.
        case discarding
        /// A long-poll is parked until a publish wakes it, it times out, or the client leaves; or
        /// it found messages and waits only for its loop's answer queue (`ParkedPoll.isDeferred`).
        case parked(ParkedPoll)
        /// A deferred answer (strict commit, before hooks, history read) is outstanding.
        case answering
    }

    /// Where the current request stands.
    var phase: Phase = .idle {
        didSet {
            switch phase {
            case .parked, .answering: isAwaitingAnswer = true
            case .idle, .receiving, .discarding: isAwaitingAnswer = false
            }
        }
    }
    /// The head of a request whose body is still arriving (or of a bodiless one replayed from the
    /// queue): set when it arrives (`begin(_:)`), taken out at its end; a bodiless request handled
    /// as it arrives is dispatched at its head and never stored here. Cleared once it
    /// is answered (`endRequest()`; kept while a refused request is discarded). Kept beside
    /// `phase` rather than in it, and with `isAwaitingAnswer` stored, so reading either copies
    /// nothing on the hot path.
    private(set) var head: RequestHead?
    /// What answering reads of `head` (nil with it): read on every answer, it is kept apart, since
    /// reading a field through the optional head copies the whole head.
    private(set) var answering: Answering?

    /// The few facts of the current head that shape its answer.
    struct Answering {
        /// The request's minor HTTP version.
        var minorVersion: Int
        /// Whether the head asks for the connection to stay open.
        var keepAlive: Bool
        /// A `GET` (a long-poll's answer may be shared).
        var isGET: Bool
        /// A `HEAD`: answered without a body.
        var isHEAD: Bool
        /// What the metrics count the answer under.
        var family: RequestFamily
    }

    /// Makes `head` the current request's.
    mutating func begin(_ head: consuming RequestHead) {
        beginAnswering(head)
        self.head = consume head
    }

    /// Makes `head`'s request the current one without keeping the head: for a request complete
    /// at its head (no body), which is dispatched at once.
    mutating func beginAnswering(_ head: borrowing RequestHead) {
        answering = Answering(minorVersion: head.minorVersion, keepAlive: head.keepAlive, isGET: head.isGET,
                              isHEAD: head.isHEAD, family: head.family)
    }

    /// Takes the current head out (`answering` stays until the answer): once the request is
    /// complete nothing reads it again, and a parked poll then keeps no received bytes.
    mutating func takeHead() -> RequestHead? {
        head.take()  // moved out: no copy of its buffers and strings
    }

    /// The current request has been answered.
    mutating func endRequest() {
        head = nil
        answering = nil
    }
    /// Whether an answer is outstanding (parked or deferred): new parts must wait.
    private(set) var isAwaitingAnswer = false
    /// The server is draining.
    var draining = false
    /// The connection's last answer has been written (or it is being closed): nothing more is read
    /// or handled.
    var closing = false
    /// The connection is over its client's connection limit: it closes after its first answer.
    var closeAfterAnswer = false
    /// Request parts held behind an outstanding answer.
    var queued: [HTTPRequestParser.Part] = []
    /// When the current request's head arrived (monotonic nanoseconds; 0 when metrics are off).
    var startedNanoseconds: UInt64 = 0
    /// The current request was parked: its answer is counted but not timed.
    var wasParked = false
    /// The connection's last subscribe, decoded, for its next poll (see `RepeatedSubscribe`).
    var lastSubscribe: RepeatedSubscribe?
    /// The connection's last publish read off its target, prepared, for its next (see `RepeatedPublish`).
    var lastPublish: RepeatedPublish?

    /// The parked long-poll, if any.
    var parked: ParkedPoll? {
        if case .parked(let parked) = phase { return parked }
        return nil
    }
}
