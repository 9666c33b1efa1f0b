import Dispatch
import Foundation
import PubNodeClient

/// The inputs of a running subscription: the client's events and Ctrl-C (SIGINT) or SIGTERM.
final class SubscribeSession {
    /// One thing the subscribe loop reacts to.
    enum Input: Sendable {
        /// A subscription event.
        case event(SubscriptionEvent)
        /// SIGINT or SIGTERM arrived.
        case interrupted
    }

    /// Everything that happens, in order.
    let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    private let listener: Listener
    private let client: PubNodeClient
    private let sources: [any DispatchSourceSignal]

    /// Listens to `client` and catches SIGINT and SIGTERM until `stop()`.
    init(client: PubNodeClient) {
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        self.inputs = inputs
        self.continuation = continuation
        self.client = client
        listener = Listener(continuation)
        client.addListener(listener)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(.interrupted) }
            source.resume()
            return source
        }
    }

    /// Stops listening; a second Ctrl-C from now on ends the process at once.
    func stop() {
        client.removeListener(listener)
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        continuation.finish()
    }

    /// Forwards subscription events into the input stream.
    private final class Listener: SubscriptionListener {
        let continuation: AsyncStream<Input>.Continuation

        init(_ continuation: AsyncStream<Input>.Continuation) { self.continuation = continuation }

        func didReceive(message: ReceivedMessage) { continuation.yield(.event(.message(message))) }
        func didReceive(signal: ReceivedMessage) { continuation.yield(.event(.signal(signal))) }
        func didReceive(presence: PresenceChange) { continuation.yield(.event(.presence(presence))) }
        func didChange(status: StatusChange) { continuation.yield(.event(.status(status))) }
    }
}
