import NIOCore

/// What a connection should do next, as decided by its `ExchangeDriver`.
enum ExchangeStep {
    /// Write this request and wait for its response.
    case send(OutboundRequest)
    /// Do nothing until the deadline, then ask the driver again.
    case wait(until: NIODeadline)
    /// The driver is done: close the connection.
    case finish
}
