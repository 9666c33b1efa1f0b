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
    /// Scans the target's UTF-8 bytes in place: this runs once per request on the hot path.
    public init(method: HTTPMethod, uri: String, body: ByteBuffer? = nil) throws(PubNodeError) {
        self.method = method
        self.body = body
        self.target = uri
        var target = uri
        let parsed = target.withUTF8 { bytes in Self.parse(UnsafeRawBufferPointer(bytes)) }
        switch parsed {
        case .success(let (segments, query)):
            self.segments = segments
            self.query = query
        case .failure(let error):
            throw error
        }
    }

    /// The target's path segments (split on `/`, then each decoded) and its query parameters.
    private static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<([String], QueryParameters), PubNodeError> {
        let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        var segments: [String] = []
        segments.reserveCapacity(8)
        // The part before the first `/` is not a segment (a target starts with one).
        var start = (bytes[..<pathEnd].firstIndex(of: UInt8(ascii: "/")) ?? pathEnd) + 1
        while start <= pathEnd {
            let end = bytes[start..<pathEnd].firstIndex(of: UInt8(ascii: "/")) ?? pathEnd
            guard let decoded = PercentDecoding.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) else {
                return .failure(.invalidParameter("malformed percent-encoding or invalid UTF-8 in the path"))
            }
            segments.append(decoded)
            start = end + 1
        }
        var query = QueryParameters()
        var pairStart = pathEnd + 1
        while pairStart <= bytes.count {
            let end = bytes[pairStart...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if pairStart < end {
                let equals = bytes[pairStart..<end].firstIndex(of: UInt8(ascii: "=")) ?? end
                let valueStart = equals == end ? end : equals + 1
                guard let name = PercentDecoding.decode(UnsafeRawBufferPointer(rebasing: bytes[pairStart..<equals])),
                      let value = PercentDecoding.decode(UnsafeRawBufferPointer(rebasing: bytes[valueStart..<end])) else {
                    return .failure(.invalidParameter("malformed percent-encoding or invalid UTF-8 in the query"))
                }
                query.append(name: name, value: value)
            }
            pairStart = end + 1
        }
        return .success((segments, query))
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
        query[name]?.commaSeparatedItems() ?? []
    }

    /// A boolean query parameter: `1`/`true` or `0`/`false`; nil when absent.
    func flag(_ name: String) throws(PubNodeError) -> Bool? {
        guard let value = query[name] else { return nil }
        guard let flag = Self.flag(reading: value) else { throw .invalidParameter("\(name) must be true or false") }
        return flag
    }

    /// A boolean parameter's value: `1`/`true` or `0`/`false`, any case; nil for anything else.
    static func flag(reading value: String) -> Bool? {
        switch value.lowercased() {
        case "1", "true": return true
        case "0", "false": return false
        default: return nil
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
