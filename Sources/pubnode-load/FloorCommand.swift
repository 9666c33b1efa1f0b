import ArgumentParser
import NIOCore
import NIOPosix

/// `floor`: serves the publish and subscribe shapes the other scenarios send with the least work
/// a SwiftNIO server can do (`FloorHub`), on one event loop by default, so that the cost NIO's channels set
/// under any server built on them can be measured the same way as PubNode and Nchan.
struct FloorCommand: AsyncParsableCommand {
    /// Subcommand name and help.
    static let configuration = CommandConfiguration(
        commandName: "floor",
        abstract: "Serve publish and subscribe answers from prebuilt bytes on NIO event loops (a cost floor).",
        discussion: "Binds a loopback address only, and stops by itself after --seconds."
    )

    /// Address to bind; loopback only.
    @Option(help: "Address to bind (loopback only).")
    var host = "127.0.0.1"

    /// Port to bind.
    @Option(help: "Port to bind.")
    var port = 9090

    /// Seconds after which the server stops by itself.
    @Option(help: "Seconds to serve before stopping.")
    var seconds: Double = 600

    /// Event loops; each keeps its own `FloorHub`.
    @Option(help: ArgumentHelp("Event loops.", discussion: """
        Each loop has its own hub: a publish reaches the long-polls parked on its own loop only, \
        which suits the publish scenario; fan-out needs one loop.
        """))
    var threads = 1

    /// Checks the address and bounds.
    mutating func validate() throws {
        guard CommonOptions.isLoopback(host) else { throw ValidationError("refusing non-loopback host '\(host)'") }
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535") }
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be in (0, 3600]") }
        guard (1...16).contains(threads) else { throw ValidationError("--threads must be 1...16") }
    }

    /// Serves until `seconds` have passed.
    func run() async throws {
        FileLimit.raiseToHardMaximum()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        // Each made on its loop and touched only there: a child channel's initializer runs on its loop.
        var hubs: [ObjectIdentifier: NIOLoopBound<FloorHub>] = [:]
        for loop in group.makeIterator() {
            hubs[ObjectIdentifier(loop)] = try await loop.submit { NIOLoopBound(FloorHub(), eventLoop: loop) }.get()
        }
        let loopHubs = hubs
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // The node's options, set as the node sets them: directly, not through a
                    // bootstrap's chain of futures.
                    try channel.syncOptions?.setOption(.socketOption(.tcp_nodelay), value: 1)
                    try channel.syncOptions?.setOption(.maxMessagesPerRead, value: 16)
                    try channel.pipeline.syncOperations.addHandler(FloorHandler(hub: loopHubs[ObjectIdentifier(channel.eventLoop)]!.value))
                }
            }
            .bind(host: host, port: port).get()
        try await Task.sleep(nanoseconds: Waiting.nanos(seconds: seconds))
        try await channel.close()
        try await group.shutdownGracefully()
    }
}
