import Crypto
import NIOCore

/// A Lua script run with `EVALSHA`, falling back to `EVAL` (which also loads it) when Redis does
/// not know it yet (`NOSCRIPT`: a fresh or restarted server, or `SCRIPT FLUSH`).
public struct RedisScript: Sendable {
    /// The script's source.
    public let source: String
    /// Its SHA-1, lowercase hex, as Redis names it.
    public let sha: String

    /// A script from its source.
    public init(_ source: String) {
        self.source = source
        self.sha = Insecure.SHA1.hash(data: Array(source.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Runs the script with `keys` and `arguments` on `connection`.
    public func run(on connection: RedisConnection, keys: [RESPArgument], arguments: [RESPArgument]) -> EventLoopFuture<RESPValue> {
        let tail: [RESPArgument] = [.integer(Int64(keys.count))] + keys + arguments
        let source = self.source
        return connection.sendCommand(["EVALSHA", .text(sha)] + tail).flatMapError { error in
            guard case RedisError.reply(let text) = error, text.hasPrefix("NOSCRIPT") else {
                return connection.channel.eventLoop.makeFailedFuture(error)
            }
            return connection.sendCommand(["EVAL", .text(source)] + tail)
        }
    }
}
