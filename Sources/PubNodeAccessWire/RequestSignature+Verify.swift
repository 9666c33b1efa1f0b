extension RequestSignature {
    /// The longest raw query ``verify(method:path:rawQuery:body:publishKey:subscribeKey:secret:now:window:)``
    /// considers (32 KiB); longer ones are a mismatch.
    public static let maxQueryLength = 32 * 1024

    /// Parameters some SDK requests sign in their already percent-encoded form (notes §1.3 (b)).
    static let preEncodedKeys: [[UInt8]] = ["channel-group", "filter-expr", "state", "custom_message_type"]
        .map { Array($0.utf8) }

    /// Verifies a request as received: `rawQuery` is the query string exactly as on the wire (no '?'), `path` the raw path as sent.
    ///
    /// The query is split on `&` and each pair on its first `=`; values are percent-decoded only
    /// (`+` stays `+`); `signature` is left out. Because some SDK parameters are signed
    /// double-encoded, every subset of the pre-encoded keys present (`channel-group`, `filter-expr`,
    /// `state`, `custom_message_type`) is tried with those values signed as on the wire and the rest
    /// decoded. A `v2.` signature is checked against the request's method and body; for a `POST`
    /// whose path starts with `/publish`, also against `GET` with no body (the JavaScript SDK), and a
    /// signature without `v2.` is checked as v1 (the Python SDK). Any other unprefixed signature is a
    /// mismatch.
    /// Comparison is constant-time and ignores `=` padding. Duplicate keys, a non-numeric timestamp
    /// or a query longer than ``maxQueryLength`` are a mismatch.
    public static func verify(
        method: String, path: String, rawQuery: String, body: [UInt8]?, publishKey: String, subscribeKey: String,
        secret: String, now: UInt64, window: UInt64 = 60
    ) -> SignatureCheck {
        guard rawQuery.utf8.count <= maxQueryLength else { return .mismatch }
        var params: [(key: [UInt8], raw: [UInt8], decoded: [UInt8])] = []
        var signature: [UInt8]?
        var timestamp: [UInt8]?
        var seen = Set<[UInt8]>()
        var duplicate = false
        for segment in Array(rawQuery.utf8).split(separator: UInt8(ascii: "&")) {
            let equals = segment.firstIndex(of: UInt8(ascii: "="))
            let key = percentDecode(segment[..<(equals ?? segment.endIndex)])
            let raw = Array(equals.map { segment[segment.index(after: $0)...] } ?? [])
            if !seen.insert(key).inserted { duplicate = true }
            if key == Array("signature".utf8) {
                signature = percentDecode(raw[...])
                continue
            }
            if key == Array("timestamp".utf8) { timestamp = percentDecode(raw[...]) }
            params.append((key, raw, percentDecode(raw[...])))
        }
        guard let signature, let timestamp else { return .missing }
        guard !duplicate, let seconds = parseSeconds(timestamp) else { return .mismatch }
        let skew = seconds > now ? seconds - now : now - seconds
        guard skew <= window else { return .stale }

        let v2Prefix = Array("v2.".utf8)
        let isV2 = signature.starts(with: v2Prefix)
        var given = isV2 ? Array(signature.dropFirst(v2Prefix.count)) : signature
        while given.last == UInt8(ascii: "=") { given.removeLast() }

        let pathBytes = Array(path.utf8)
        let methodBytes = Array(method.uppercased().utf8)
        // The SDKs' two unsigned-body forms exist only for a POST publish: v1 (Python) and v2 with
        // GET and no body (JavaScript). Anywhere else the method and body must be signed.
        let isPostPublish = methodBytes == Array("POST".utf8) && path.hasPrefix("/publish")
        let flexible = params.indices.filter { preEncodedKeys.contains(params[$0].key) }
        var matched = false
        for mask in 0..<(1 << flexible.count) {
            var pairs = params.map { ($0.key, $0.decoded) }
            for (bit, index) in flexible.enumerated() where mask & (1 << bit) != 0 {
                pairs[index].1 = params[index].raw
            }
            let query = canonicalQuery(bytes: pairs)
            var candidates: [[UInt8]] = []
            if isV2 {
                candidates.append(v2MAC(
                    secret: secret, method: methodBytes, publishKey: publishKey, path: pathBytes, query: query, body: body))
                if isPostPublish {
                    candidates.append(v2MAC(
                        secret: secret, method: Array("GET".utf8), publishKey: publishKey, path: pathBytes,
                        query: query, body: nil))
                }
            } else if isPostPublish {
                candidates.append(v1MAC(
                    secret: secret, subscribeKey: subscribeKey, publishKey: publishKey, path: pathBytes, query: query))
            }
            for mac in candidates {
                let expected = Array(Base64.encode(mac, urlSafe: true, padded: false).utf8)
                if constantTimeEqual(expected, given) { matched = true }
            }
        }
        return matched ? .valid : .mismatch
    }

    /// Decodes `%XX` escapes (either hex case); a `%` not followed by two hex digits stays literal.
    /// `+` is not touched.
    static func percentDecode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), bytes.endIndex - index >= 3,
               let high = bytes[index + 1].hexDigitValue, let low = bytes[index + 2].hexDigitValue {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    /// Parses 1–19 ASCII digits as unix seconds.
    static func parseSeconds(_ bytes: [UInt8]) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 19 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
