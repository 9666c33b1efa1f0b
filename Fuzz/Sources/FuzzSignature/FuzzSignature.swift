import FuzzSupport
import PubNodeAccessWire

/// Request signatures: `RequestSignature.verify` never traps on any raw query, and a query built
/// from arbitrary (decoded) pairs and signed with `v2(…canonicalQuery…)` verifies as `.valid`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    let now: UInt64 = 1_700_000_000
    let method = bytes.first.map { $0 & 1 == 0 ? "GET" : "POST" } ?? "GET"
    let path = "/publish/pub-key/sub-key/0/channel/0"
    _ = RequestSignature.verify(
        method: method, path: path, rawQuery: text, body: Array(bytes.prefix(16)), publishKey: "pub-key",
        subscribeKey: "sub-key", secret: "secret", now: now)

    // Sign the same text read as decoded pairs, then check the node accepts it.
    var pairs: [(String, String)] = []
    var keys = Set<String>()
    for item in text.split(separator: "&") {
        let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let key = String(parts[0])
        let value = parts.count > 1 ? String(parts[1]) : ""
        guard key != "signature", key != "timestamp", keys.insert(key).inserted else { continue }
        pairs.append((key, value))
    }
    pairs.append(("timestamp", String(now)))
    let signature = RequestSignature.v2(
        secret: "secret", method: "GET", publishKey: "pub-key", path: path,
        canonicalQuery: RequestSignature.canonicalQuery(pairs), body: nil)
    var raw = pairs.map { percentEncode($0.0.utf8) + "=" + percentEncode($0.1.utf8) }
    raw.append("signature=" + percentEncode(signature.utf8))
    let rawQuery = raw.joined(separator: "&")
    guard rawQuery.utf8.count <= RequestSignature.maxQueryLength else { return 0 }
    let check = RequestSignature.verify(
        method: "GET", path: path, rawQuery: rawQuery, body: nil, publishKey: "pub-key", subscribeKey: "sub-key",
        secret: "secret", now: now)
    require(check == .valid, "signed query \(rawQuery) gave \(check)")
    return 0
}
