import NIOHTTP1

/// A request's head as `HTTPRequestParser` reads it: the request line decoded, the framing and
/// connection fields already interpreted, and the other header lines kept as received for the few
/// endpoints that read them.
///
/// Building it costs two strings (the target and the header block), not one per field: the hot
/// endpoints (publish, subscribe) read no header at all.
public struct RequestHead: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target exactly as received (`/path?query`).
    public var uri: String
    /// The minor HTTP version: 1 for HTTP/1.1, 0 for HTTP/1.0.
    public var minorVersion: Int
    /// Whether the connection stays open after the answer (HTTP/1.1 unless `Connection: close`;
    /// HTTP/1.0 only with `Connection: keep-alive`).
    public var keepAlive: Bool
    /// The body's length from `Content-Length` (nil when absent or chunked).
    public var contentLength: Int?
    /// Whether the body is sent with `Transfer-Encoding: chunked`.
    public var chunked: Bool
    /// How the body is compressed (`Content-Encoding`).
    public var contentEncoding: ContentEncoding
    /// How many header fields the head carries.
    public var fieldCount: Int
    /// The header lines as received, each ending in a line feed (without the request line and the
    /// closing blank line). Bytes that are not UTF-8 read as U+FFFD.
    public var fieldBlock: String

    /// A compression of the request body that the node undoes.
    public enum ContentEncoding: Sendable, Equatable {
        /// Not compressed.
        case identity
        /// gzip (RFC 1952), also `x-gzip`.
        case gzip
        /// zlib-wrapped deflate (RFC 1950), as HTTP's `deflate` means.
        case deflate
    }

    /// Every header field in order as (name, value), value without surrounding white space.
    public var fields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(fieldCount)
        for line in fieldBlock.utf8.split(separator: UInt8(ascii: "\n")) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = Substring(line[line.startIndex..<colon])
            var value = Substring(line[line.index(after: colon)...])
            while let last = value.utf8.last, last == 13 || last == 32 || last == 9 { value.removeLast() }
            while let first = value.utf8.first, first == 32 || first == 9 { value.removeFirst() }
            fields.append((String(name), String(value)))
        }
        return fields
    }

    /// The value of the first field called `name` (compared case-insensitively), or nil.
    public func field(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// Whether the target starts with `prefix` (compared as bytes).
    func targets(_ prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { wanted in uri.utf8.starts(with: wanted) }
    }
}
