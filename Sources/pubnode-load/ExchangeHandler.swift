import NIOCore

/// Runs an `ExchangeDriver` on one channel: one request at a time, keep-alive.
///
/// Requests are written pre-serialized; responses arrive whole from `HTTPReplyDecoder`.
final class ExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Whole responses from `HTTPReplyDecoder`.
    typealias InboundIn = HTTPReply
    /// Pre-serialized requests.
    typealias OutboundOut = ByteBuffer

    /// The client logic.
    private let driver: any ExchangeDriver
    /// Request currently in flight, if any.
    private var inFlight: OutboundRequest?
    /// When the in-flight request was written.
    private var sentAt: UInt64 = 0
    /// Pending timer for a `.wait` step.
    private var timer: Scheduled<Void>?
    /// Set once the channel is closing, so nothing more is written.
    private var closing = false

    /// Creates a handler running `driver`.
    init(driver: any ExchangeDriver) {
        self.driver = driver
    }

    /// Starts the exchange as soon as the TCP connection is up.
    func channelActive(context: ChannelHandlerContext) {
        pump(context: context)
        context.fireChannelActive()
    }

    /// Hands each response to the driver and continues (or closes if the server asked to).
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = MonotonicClock.now()
        let reply = unwrapInboundIn(data)
        guard let request = inFlight else {
            driver.connectionLost(request: nil, error: HTTPReplyDecoderError(reason: "unsolicited HTTP \(reply.statusCode)"))
            closeChannel(context: context)
            return
        }
        inFlight = nil
        driver.received(reply, request: request, sentAt: sentAt, now: now)
        if reply.keepAlive {
            pump(context: context)
        } else {
            closeChannel(context: context)
        }
    }

    /// Reports a lost request to the driver and cancels timers.
    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if let request = inFlight {
            inFlight = nil
            driver.connectionLost(request: request, error: nil)
        }
        context.fireChannelInactive()
    }

    /// Transport or decoding errors close the connection; the worker decides about reconnecting.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let request = inFlight
        inFlight = nil
        driver.connectionLost(request: request, error: error)
        closeChannel(context: context)
    }

    /// Asks the driver what to do and does it.
    private func pump(context: ChannelHandlerContext) {
        guard !closing, inFlight == nil else { return }
        switch driver.nextStep(now: MonotonicClock.now()) {
        case .send(let request):
            write(request, context: context)
        case .wait(let deadline):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(deadline: deadline) {
                let (handler, context) = loopBound.value
                handler.timer = nil
                handler.pump(context: context)
            }
        case .finish:
            closeChannel(context: context)
        }
    }

    /// Writes and flushes one request.
    private func write(_ request: OutboundRequest, context: ChannelHandlerContext) {
        inFlight = request
        sentAt = MonotonicClock.now()
        context.writeAndFlush(wrapOutboundOut(request.wire), promise: nil)
    }

    /// Closes the channel once.
    private func closeChannel(context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        timer?.cancel()
        timer = nil
        context.close(promise: nil)
    }
}
