/// Decides the requests of one logical client and consumes their responses.
///
/// A driver lives on a single event loop and may outlive several TCP connections (the
/// worker reconnects when the server closes one). Exactly one request is in flight at a time.
protocol ExchangeDriver: AnyObject, SendableMetatype {
    /// Asked when a connection becomes active, after each response and after each wait.
    func nextStep(now: UInt64) -> ExchangeStep

    /// Receives the response to the request that was written at `sentAt`.
    func received(_ reply: HTTPReply, request: OutboundRequest, sentAt: UInt64, now: UInt64)

    /// Told that the connection failed or closed while a request was outstanding.
    func connectionLost(request: OutboundRequest?, error: (any Error)?)

    /// True once the driver wants no further connections.
    var isFinished: Bool { get }
}
