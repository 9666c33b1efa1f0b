import NIOCore
import NIOHTTP1

/// A request's head as `HTTPRequestParser` reads it: the request line decoded, the framing and
/// connection fields already interpreted, and the other header lines kept as received for the few
/// endpoints that read them.
///
/// Building it allocates nothing for the hot endpoints (publish, subscribe): the target is a view
/// of the received bytes and their header lines are not kept. Other targets keep theirs as one
/// string (the header block), not one per field.
public struct RequestHead: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target's bytes exactly as received (`/path?query`): a slice of the received
    /// buffer, not a copy, so it keeps that buffer's storage while it lives (`detachTarget()`).
    public var target: ByteBuffer
    /// The request target as a string, built on each read (a connection's repeated long-poll or
    /// publish reads `target`'s bytes instead).
    public var uri: String { String(buffer: target) }
    /// The endpoint family the target belongs to, read once off it: what the metrics count the
    /// answer under, and whether the parser keeps the field lines (`fieldsUnread`).
    public var family: RequestFamily
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
    /// The header lines as received, each ending in CRLF (without the request line and the
    /// closing empty line). Bytes that are not UTF-8 read as U+FFFD. Empty for the targets whose
    /// endpoints read no header field (`fieldsUnread`).
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
        let bytes = Array(fieldBlock.utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            var start = colon + 1
            var end = line.endIndex
            while end > start, [13, 32, 9].contains(line[end - 1]) { end -= 1 }
            while start < end, [32, 9].contains(line[start]) { start += 1 }
            fields.append((String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                           String(decoding: line[start..<end], as: UTF8.self)))
        }
        return fields
    }

    /// The value of the first field called `name` (compared case-insensitively), or nil.
    public func field(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// True for publish, signal and subscribe targets: their endpoints read no header field (the
    /// framing and connection fields are read into the other properties), so the parser does not
    /// keep the field lines for them. Every other target keeps its fields.
    var fieldsUnread: Bool { family.fieldsUnread }

    /// Whether the method is `GET`. Methods are matched by case on the hot path: `==` between two
    /// `HTTPMethod`s resolves to the `RawRepresentable` one, which builds and compares their names.
    var isGET: Bool {
        if case .GET = method { return true }
        return false
    }

    /// Whether the method is `HEAD` (matched by case, as `isGET`).
    var isHEAD: Bool {
        if case .HEAD = method { return true }
        return false
    }

    /// Whether the target starts with `prefix` (compared as bytes).
    func targets(_ prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { wanted in target.readableBytesView.starts(with: wanted) }
    }

    /// Gives the target storage of its own (one allocation), so that keeping the head, as a
    /// request whose body is still arriving does, keeps no received buffer.
    mutating func detachTarget() {
        var own = ByteBuffer()
        own.reserveCapacity(target.readableBytes)
        own.writeImmutableBuffer(target)
        target = own
    }
}
