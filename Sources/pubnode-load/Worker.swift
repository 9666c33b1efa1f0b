import NIOCore

/// One logical client: a driver bound to the event loop that runs all of its connections.
struct Worker<Driver: ExchangeDriver>: Sendable {
    /// The event loop owning the driver and every connection made for it.
    let loop: any EventLoop
    /// The driver, accessible only on `loop`.
    let box: NIOLoopBoundBox<Driver>
    /// The server port this worker connects to; nil: the runtime's `--port`.
    let port: Int?

    /// Wraps `driver`, handing it over to `loop`; its connections go to `port` (default: `--port`).
    init(driver: sending Driver, loop: any EventLoop, port: Int? = nil) {
        self.loop = loop
        self.port = port
        self.box = NIOLoopBoundBox.makeBoxSendingValue(driver, eventLoop: loop)
    }

    /// Whether the driver wants no more connections (hops to the loop).
    func isFinished() async -> Bool {
        let box = self.box
        return (try? await loop.submit { box.value.isFinished }.get()) ?? true
    }

    /// Tells the driver that a connection attempt failed.
    func connectFailed(_ error: any Error) {
        let box = self.box
        loop.execute { box.value.connectionLost(request: nil, error: error) }
    }
}
