import PubNodeServer
import ServiceLifecycle

/// The HTTP server in the group: binds when the group starts and drains on graceful shutdown
/// (stops accepting, answers parked long-polls with their cursor, closes connections, stops the
/// event loops). `PubNodeHTTPServer.start()`/`shutdown()` remain usable without a group.
struct HTTPServerService: Service, CustomStringConvertible {
    /// The server run.
    let server: PubNodeHTTPServer
    /// Called with the bound port once the server listens.
    let onListening: @Sendable (Int) -> Void

    /// Creates the service of `server`.
    init(_ server: PubNodeHTTPServer, onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.server = server
        self.onListening = onListening
    }

    /// Its name in logs.
    var description: String { "http server" }

    /// Serves until the group stops, then drains.
    func run() async throws {
        let port = try await server.start()
        onListening(port)
        try? await gracefulShutdown()
        try await server.shutdown()
    }
}
