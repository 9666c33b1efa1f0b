import NIOCore
import NIOHTTP1
import PubNodeCore

/// A connection's standing with the per-client limits (`ClientLimits`), kept by its handler on its
/// event loop.
///
/// Invariant: `counted` is true exactly while this connection holds one count in the shared
/// connection counter; it is set once, when the connection becomes active, and cleared by the
/// first of `channelInactive` and `handlerRemoved`, so each counted connection is released once.
struct ClientStanding {
    /// Whether admission has been decided (once per connection).
    var decided = false
    /// The client's IP address, when the transport has one.
    var address: String?
    /// Whether this connection holds a count in the connection counter.
    var counted = false
    /// Whether the connection is over its address's connection limit.
    var overConnectionLimit = false
    /// Whether this connection is counted in the open-connections gauge (set and cleared once).
    var open = false
    /// Whether this connection holds a count in the node-wide connection limit.
    var nodeCounted = false
    /// Whether this connection's parked long-poll holds a count in the per-address parked limit.
    var parkCounted = false
}

extension PubNodeHTTPHandler {
    /// Counts this connection against its address's limit, once; one over it is marked to answer
    /// 429 and close.
    func admitClient(context: ChannelHandlerContext) {
        guard !client.decided else { return }
        client.decided = true
        client.open = true
        router.operations.gauges.connectionOpened()
        guard router.clientLimits.openNodeConnection() else {
            // Over the node's limit: closed at once, before it can hold a descriptor any longer.
            router.operations.gauges.connectionRefused()
            context.close(promise: nil)
            return
        }
        client.nodeCounted = true
        guard let remote = context.channel.remoteAddress else { return }
        // An exempt client needs no key: writing one out costs more than the rest of admission.
        if router.clientLimits.exemptsPrivateAddresses, ClientAddress.isPrivate(remote) { return }
        guard let address = ClientAddress.key(remote) else { return }
        client.address = address
        let clientLimits = router.clientLimits
        guard clientLimits.maxConnections > 0 else { return }
        if clientLimits.openConnection(from: address) {
            client.counted = true
        } else {
            client.overConnectionLimit = true
            state.closeAfterAnswer = true
        }
    }

    /// Gives this connection's count back, if it holds one; later calls do nothing.
    func releaseClient() {
        if client.open {
            client.open = false
            router.operations.gauges.connectionClosed()
        }
        if client.nodeCounted {
            client.nodeCounted = false
            router.clientLimits.closeNodeConnection()
        }
        guard client.counted, let address = client.address else { return }
        client.counted = false
        router.clientLimits.closeConnection(from: address)
    }

    /// Takes a parked-poll count for this connection's address; false when the address has its
    /// limit of parked polls (the poll is then answered 429).
    func admitParkedPoll() -> Bool {
        guard let address = client.address else { return true }
        guard router.clientLimits.parkPoll(from: address) else { return false }
        client.parkCounted = true
        return true
    }

    /// Gives the parked-poll count back, if this connection holds one.
    func releaseParkedPoll() {
        guard client.parkCounted, let address = client.address else { return }
        client.parkCounted = false
        router.clientLimits.unparkPoll(from: address)
    }

    /// Counts the answer to the current request in the HTTP metrics (timed unless it was parked).
    func recordAnswer(status: UInt) {
        guard let httpMetrics else { return }
        guard let family = state.answering?.family else {
            // Refused before a head was read (malformed bytes): counted, not timed.
            httpMetrics.record(.other, status: status, nanoseconds: nil)
            return
        }
        let elapsed = state.wasParked ? nil : NIODeadline.now().uptimeNanoseconds &- state.startedNanoseconds
        httpMetrics.record(family, status: status, nanoseconds: elapsed)
        state.wasParked = false
    }

    /// The 429 for a request over a per-client limit, nil when it may proceed. `/time/0` (how SDKs
    /// probe before reconnecting) and `OPTIONS` are never refused; on a connection over the
    /// connection limit they are answered and the connection then closes.
    func clientRefusal(_ head: RequestHead) -> HTTPReply? {
        if case .OPTIONS = head.method { return nil }
        guard !head.targets("/time/") else { return nil }
        if client.overConnectionLimit {
            return ErrorResponses.reply(.tooManyRequests(retryAfter: 1), shape: .object(service: "Rate Limiter"),
                                        timetoken: router.node.time())
        }
        guard let address = client.address, let retryAfter = router.clientLimits.admitRequest(from: address) else {
            return nil
        }
        return ErrorResponses.reply(.tooManyRequests(retryAfter: retryAfter), shape: .object(service: "Rate Limiter"),
                                    timetoken: router.node.time())
    }
}
