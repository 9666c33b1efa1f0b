import NIOCore
import NIOHTTP1
import PubNodeCore

/// What the connection handler does with a routed request.
public enum RouteAction: Sendable {
    /// Answer at once.
    case reply(HTTPReply)
    /// Answer at once that a publish was accepted with this timetoken: `HTTPReply.sent`, which the
    /// transport writes without building its body first.
    case sent(Timetoken)
    /// A long-poll: answer when messages are ready after its cursor (a plain single-channel one
    /// with its loop's answer queue), else park it.
    case poll(LongPoll)
    /// Answer later: `start` runs once and calls its argument exactly once, on any thread (a
    /// strict-mode publish waiting for its commit, before hooks, history reads, on-request hooks).
    case deferred(@Sendable (@escaping @Sendable (HTTPReply) -> Void) -> Void)
}

/// PubNub's wire protocol onto `Node`: each endpoint decodes its request into a request value,
/// calls the node and encodes the result in PubNub's shape (errors through `ErrorResponses`).
/// It holds no domain state and touches no broker, hub or presence store. Pure: no sockets, so it
/// is tested directly.
///
/// A value: each connection's handler keeps its own copy (48 bytes). As one shared object it saved
/// 40 of them, but every request retained it, from every event loop, and the cache line holding
/// its reference count went back and forth between the cores (`Docs/performance.md`, twenty-third
/// series).
public struct Router: Sendable {
    /// The node every operation goes to.
    public let node: Node
    /// The region reported in timetoken objects.
    public let region: Int
    /// Limits per client address, applied by the HTTP front; their counters are served here.
    public let clientLimits: ClientLimits
    /// Readiness, metrics, the console and the connection gauges.
    public let operations: Operations
    /// True on the metrics port: only `/metrics` (without a token) and the probes are served.
    public let metricsListener: Bool
    /// Per-event-loop batches of woken long-polls, shared by the connections this router serves.
    let wakeQueues: WakeQueues

    /// Creates a router; `clientLimits` are none by default, `operations` default to metrics on and
    /// the installed console.
    public init(node: Node, region: Int = 1, clientLimits: ClientLimits = ClientLimits(), operations: Operations? = nil,
                metricsListener: Bool = false) {
        self.node = node
        self.region = region
        self.clientLimits = clientLimits
        self.operations = operations
            ?? Operations(startedAtMilliseconds: Int64(node.clock.nowNanoseconds() / 1_000_000))
        self.metricsListener = metricsListener
        self.wakeQueues = WakeQueues(idleConnectionSeconds: node.limits.idleConnectionSeconds)
    }

    /// Routes a request. Every refusal comes back as a PubNub-shaped reply; nothing throws.
    public func route(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        if metricsListener { return routeMetricsListener(request) }
        switch (request.method, s.first ?? "") {
        case (.OPTIONS, _):
            var preflight = HTTPReply.json("{}")
            preflight.headers = HTTPResponseWriter.preflightHeaders
            return .reply(preflight)
        case (.GET, "time") where s.count == 2:
            return .reply(.json("[\(node.time())]"))
        case (.GET, "publish") where s.count == 7, (.POST, "publish") where s.count == 6 || s.count == 7:
            return publish(request, kind: .message)
        case (.GET, "signal") where s.count == 7, (.POST, "signal") where s.count == 6 || s.count == 7:
            return publish(request, kind: .signal)
        case (.GET, "v2") where Self.targetsSubscribe(request):
            return subscribe(request)
        case (_, "v1") where s.count >= 5 && s[1] == "channel-registration" && s[2] == "sub-key" && s[4] == "channel-group":
            return channelGroups(request)
        case (.GET, "v2") where s.count >= 4 && s[1] == "presence" && s[2] == "sub-key":
            return presence(request)
        case (.GET, "v2") where s.count == 6 && s[1] == "history":
            return historyV2(request)
        case (_, "v3") where s.count == 6 && (s[1] == "history" || s[1] == "history-with-actions"):
            return historyV3(request)
        case (_, "v2") where s.count >= 4 && s[1] == "objects":
            return objects(request)
        case (_, "v1") where s.count >= 5 && s[1] == "blocks" && s[2] == "sub-key":
            return blocks(request)
        case (_, "v1") where s.count >= 5 && s[1] == "message-actions":
            return messageActions(request)
        case (_, "v1") where s.count >= 3 && s[1] == "admin" && s[2] == "hooks":
            return hooksAdmin(request)
        case (_, "v1") where s.count >= 3 && s[1] == "admin" && s[2] == "keysets":
            return keysetsAdmin(request)
        case (_, "v3") where s.count >= 4 && s[1] == "pam" && s[3] == "grant":
            return accessManager(request)
        case (_, "v1") where s.count >= 3 && s[1] == "admin" && s[2] == "limits":
            return limitsAdmin(request)
        case (_, "v1") where s.count >= 3 && s[1] == "admin" && s[2] == "stats":
            return stats(request)
        case (.GET, "health") where s.count == 1:
            return health()
        case (.GET, "ready") where s.count == 1:
            return ready()
        case (.GET, "metrics") where s.count == 1:
            return metrics(request)
        case (_, "console"):
            return console(request)
        default:
            return Self.noSuchEndpoint()
        }
    }

    /// The metrics port's routes: `/metrics` and the probes, nothing else.
    private func routeMetricsListener(_ request: PubNubRequest) -> RouteAction {
        switch (request.method, request.segments) {
        case (.GET, ["metrics"]): return metrics(request)
        case (.GET, ["health"]): return health()
        case (.GET, ["ready"]): return ready()
        default: return Self.noSuchEndpoint(service: "Metrics")
        }
    }

    /// Converts a thrown domain error to a reply of the given shape.
    func refuse(_ error: PubNodeError, _ shape: ErrorResponses.Shape) -> RouteAction {
        .reply(ErrorResponses.reply(error, shape: shape, timetoken: node.time()))
    }

    /// Runs `body`, turning any refusal into a reply of `shape`. When `keyset` is given and the
    /// refusal is a malformed parameter, a key that is not configured (or, with `history`, keeps
    /// no history) is reported instead, as PubNub does; the check costs nothing on success.
    func answering(_ shape: ErrorResponses.Shape, keyset: String? = nil, history: Bool = false,
                   _ body: () throws(PubNodeError) -> RouteAction) -> RouteAction {
        do throws(PubNodeError) { return try body() } catch {
            return refusal(error, shape, keyset: keyset, history: history)
        }
    }

    /// The reply refusing a request with `error` in `shape`, as `answering` gives it: for a
    /// malformed parameter, a `keyset` that is not configured (or, with `history`, keeps no
    /// history) is reported instead.
    func refusal(_ error: PubNodeError, _ shape: ErrorResponses.Shape, keyset: String? = nil,
                 history: Bool = false) -> RouteAction {
        if case .invalidParameter = error, let keyset {
            do throws(PubNodeError) {
                if history { try node.requireHistory(keyset) } else { try node.requireKeyset(keyset) }
            } catch { return refuse(error, shape) }
        }
        return refuse(error, shape)
    }

    /// Answers later with what `body` computes off the event loop (or its refusal in `shape`).
    func later(_ shape: ErrorResponses.Shape, _ body: @escaping @Sendable () async throws(PubNodeError) -> HTTPReply)
        -> RouteAction {
        let node = self.node
        return .deferred({ answer in
            Task {
                do throws(PubNodeError) {
                    answer(try await body())
                } catch {
                    answer(ErrorResponses.reply(error, shape: shape, timetoken: node.time()))
                }
            }
        })
    }

    /// The unknown-route answer.
    static func noSuchEndpoint(service: String = "Balancer") -> RouteAction {
        .reply(ErrorResponses.object(status: .notFound, message: "Not Found: no such endpoint", service: service))
    }

    /// The caller's uuid (`uuid`), nil when absent or empty.
    static func uuid(_ request: PubNubRequest) -> String? {
        guard let uuid = request.query["uuid"], !uuid.isEmpty else { return nil }
        return uuid
    }
}
