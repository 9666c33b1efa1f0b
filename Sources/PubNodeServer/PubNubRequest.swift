import NIOCore
import NIOHTTP1
import PubNodeCore

/// An HTTP request in the form the router works on: decoded path segments, decoded query, body.
public struct PubNubRequest: Sendable {
    /// The HTTP method.
    public var method: HTTPMethod
    /// Path segments, split on `/` first and then percent-decoded one by one.
    public var segments: [String]
    /// Query parameters, percent-decoded; a repeated name reads as its last value.
    public var query: QueryParameters
    /// The request body, if any (already decompressed).
    public var body: ByteBuffer?
    /// Headers kept for the endpoints that read them (on-request hooks, admin); empty elsewhere.
    /// Names are lowercased.
    public var headers: [String: String] = [:]
    /// The connecting peer's IP address, as the transport saw it (on-request hooks get it as
    /// `X-Forwarded-For`); nil when unknown.
    public var peerAddress: String?
    /// The request target exactly as received (`/path?query`), kept for signature checks.
    public var target: String

    /// Parses a request target (`/path?query`); throws for malformed percent-escapes.
    ///
    /// Scans UTF-8 bytes rather than `Character`s: this runs once per request on the hot path.
    public init(method: HTTPMethod, uri: String, body: ByteBuffer? = nil) throws(PubNodeError) {
        self.method = method
        self.body = body
        self.target = uri
        let bytes = uri.utf8
        let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        var segments: [String] = []
        segments.reserveCapacity(8)
        var first = true
        var start = bytes.startIndex
        var index = start
        while true {
            if index == pathEnd || bytes[index] == UInt8(ascii: "/") {
                if !first {
                    guard let decoded = PercentDecoding.decode(Substring(bytes[start..<index])) else {
                        throw .invalidParameter("malformed percent-encoding or invalid UTF-8 in the path")
                    }
                    segments.append(decoded)
                }
                first = false
                if index == pathEnd { break }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        self.segments = segments
        var query = QueryParameters()
        if pathEnd != bytes.endIndex {
            var pairStart = bytes.index(after: pathEnd)
            var cursor = pairStart
            while true {
                if cursor == bytes.endIndex || bytes[cursor] == UInt8(ascii: "&") {
                    if pairStart != cursor {
                        let pair = bytes[pairStart..<cursor]
                        let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? cursor
                        let valueStart = equals == cursor ? cursor : bytes.index(after: equals)
                        guard let name = PercentDecoding.decode(Substring(bytes[pairStart..<equals])),
                              let value = PercentDecoding.decode(Substring(bytes[valueStart..<cursor])) else {
                            throw .invalidParameter("malformed percent-encoding or invalid UTF-8 in the query")
                        }
                        query.append(name: name, value: value)
                    }
                    if cursor == bytes.endIndex { break }
                    pairStart = bytes.index(after: cursor)
                }
                cursor = bytes.index(after: cursor)
            }
        }
        self.query = query
    }

    /// The request as signed, when it carries `signature=` (nil otherwise, at the cost of one
    /// lookup): what Access Manager verifies.
    var signed: SignedRequest? {
        guard query["signature"] != nil else { return nil }
        let question = target.firstIndex(of: "?") ?? target.endIndex
        let rawQuery = question == target.endIndex ? "" : String(target[target.index(after: question)...])
        return SignedRequest(method: method.rawValue, path: String(target[..<question]), rawQuery: rawQuery,
                             body: body.map { Array($0.readableBytesView) })
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

    /// A timetoken query parameter (`tt`, `start`, `end`, `timetoken`); nil when absent.
    func timetoken(_ name: String) throws(PubNodeError) -> Timetoken? {
        guard let value = query[name] else { return nil }
        guard let timetoken = Timetoken(parsing: Substring(value)) else {
            throw .invalidParameter("\(name) must be a non-negative integer timetoken (got '\(value.prefix(40))')")
        }
        return timetoken
    }

    /// An integer query parameter; nil when absent.
    func integer(_ name: String) throws(PubNodeError) -> Int? {
        guard let value = query[name] else { return nil }
        guard let number = Int(value) else { throw .invalidParameter("\(name) must be an integer") }
        return number
    }
}
