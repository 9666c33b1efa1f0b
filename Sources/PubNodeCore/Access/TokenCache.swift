import Synchronization

/// Tokens already verified, by their text: a request carrying a known token costs a hash lookup,
/// not a base64 decode, a CBOR parse, an HMAC and pattern compilation.
///
/// Sharded so that requests with different tokens do not contend; each shard holds at most
/// `perShard` tokens and is simply emptied when full (a verification is cheap enough to redo, and
/// a flood of distinct tokens cannot grow memory).
final class TokenCache: Sendable {
    private final class Shard: Sendable {
        let tokens = Mutex<[String: VerifiedToken]>([:])
    }

    private let shards: [Shard]
    private let perShard: Int

    /// A cache of at most `16 × perShard` tokens.
    init(perShard: Int = 2048) {
        shards = (0..<16).map { _ in Shard() }
        self.perShard = perShard
    }

    /// Tokens are random base64 past their first bytes: one of their characters picks the shard,
    /// without hashing the whole text twice.
    private func shard(_ text: String) -> Shard {
        var text = text
        let pick = text.withUTF8 { bytes in bytes.isEmpty ? 0 : Int(bytes[min(40, bytes.count - 1)]) }
        return shards[pick & 15]
    }

    /// The verified token for `text`, if cached.
    func get(_ text: String) -> VerifiedToken? {
        shard(text).tokens.withLock { $0[text] }
    }

    /// Caches `token` under `text`.
    func put(_ text: String, _ token: VerifiedToken) {
        let limit = perShard
        shard(text).tokens.withLock { tokens in
            if tokens.count >= limit { tokens.removeAll(keepingCapacity: true) }
            tokens[text] = token
        }
    }

    /// Drops every cached token matching `condition` (a revocation, a deleted keyset).
    func removeAll(where condition: (VerifiedToken) -> Bool) {
        for shard in shards {
            shard.tokens.withLock { tokens in tokens = tokens.filter { !condition($0.value) } }
        }
    }
}
