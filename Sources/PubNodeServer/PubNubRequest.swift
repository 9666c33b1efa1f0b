import NIOCore
import NIOHTTP1
import PubNodeCore

/// An HTTP request in the form the router works on: decoded path segments, decoded query, body.
public struct PubNubRequest: Sendable {
    /// The HTTP method.
    public var method: HTTPMethod
    /// Path segments, split on `/` first and then percent-decoded one by one.
    public var segments: [String]
    /// Query parameters, percent-decoded; a repeated name keeps its last value.
    public var query: [String: String]
    /// The request body, if any (already decompressed).
    public var body: ByteBuffer?

    /// Parses a request target (`/path?query`); throws for malformed percent-escapes.
    public init(method: HTTPMethod, uri: String, body: ByteBuffer? = nil) throws(PubNodeError) {
        self.method = method
        self.body = body
        let target = uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri[..<$0] } ?? uri[...]
        var segments: [String] = []
        for raw in target.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            guard let decoded = PercentDecoding.decode(raw) else {
                throw .invalidParameter("malformed percent-encoding or invalid UTF-8 in the path")
            }
            segments.append(decoded)
        }
        self.segments = segments
        var query: [String: String] = [:]
        if let mark = uri.utf8.firstIndex(of: UInt8(ascii: "?")) {
            for pair in uri[uri.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = PercentDecoding.decode(parts[0]),
                      let value = PercentDecoding.decode(parts.count > 1 ? parts[1] : "") else {
                    throw .invalidParameter("malformed percent-encoding or invalid UTF-8 in the query")
                }
                query[name] = value
            }
        }
        self.query = query
    }

    /// A query parameter split on commas, empty items dropped (`channel-group=a,b`).
    func list(_ name: String) -> [String] {
        query[name].map { $0.split(separator: ",").map(String.init) } ?? []
    }

    /// A boolean query parameter: `1`/`true` or `0`/`false`; nil when absent.
    func flag(_ name: String) throws(PubNodeError) -> Bool? {
        guard let value = query[name] else { return nil }
        switch value.lowercased() {
        case "1", "true": return true
        case "0", "false": return false
        default: throw .invalidParameter("\(name) must be true or false")
        }
    }

    /// An integer query parameter; nil when absent.
    func integer(_ name: String) throws(PubNodeError) -> Int? {
        guard let value = query[name] else { return nil }
        guard let number = Int(value) else { throw .invalidParameter("\(name) must be an integer") }
        return number
    }
}
