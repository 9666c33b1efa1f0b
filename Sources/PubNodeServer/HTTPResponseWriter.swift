import NIOCore
import NIOHTTP1
import PubNodeCore

/// Serializes a whole response (status line, headers, body) into one buffer, written with one
/// `writeAndFlush`: the node's headers are constants, so they are kept as ready bytes instead of
/// going through `HTTPHeaders` and NIO's response encoder on every response.
enum HTTPResponseWriter {
    /// Headers every response carries: JSON type, no caching, CORS for browser SDKs.
    static let standardHeaders: [UInt8] = Array(("Content-Type: application/json; charset=UTF-8\r\n" + commonHeaders).utf8)

    /// Headers every response carries whatever its type. A browser reads only
    /// `Access-Control-Allow-Origin` on an actual response; the methods and headers it may use
    /// are the preflight's answer (`preflightHeaders`), so they are not repeated on every response.
    private static let commonHeaders =
        "Cache-Control: no-cache\r\n"
            + "Access-Control-Allow-Origin: *\r\n"

    /// What a CORS preflight (`OPTIONS`) is answered with besides the common headers.
    static let preflightHeaders: [(String, String)] = [
        ("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS"),
        ("Access-Control-Allow-Headers", "Origin, X-Requested-With, Content-Type, Accept, Content-Encoding, Authorization, If-Match"),
        ("Access-Control-Max-Age", "86400"),
    ]

    private static let okLine: [UInt8] = Array("HTTP/1.1 200 OK\r\n".utf8)

    /// The complete response bytes for `reply`, in a new buffer.
    /// - Parameters:
    ///   - minorVersion: the request's HTTP minor version (0 or 1), echoed in the status line.
    ///   - keepAlive: whether the connection stays open; `Connection` is set to match.
    ///   - includeBody: false for `HEAD`, which gets the headers (and length) only.
    static func serialize(_ reply: HTTPReply, minorVersion: Int, keepAlive: Bool, includeBody: Bool = true,
                          allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: capacity(forBody: reply.body.readableBytes))
        write(reply, minorVersion: minorVersion, keepAlive: keepAlive, includeBody: includeBody, into: &buffer)
        return buffer
    }

    /// A buffer capacity that holds a response with a body of `bodyBytes` and the node's headers.
    static func capacity(forBody bodyBytes: Int) -> Int {
        standardHeaders.count + bodyBytes + 96
    }

    /// Appends the complete response for `reply` to `buffer` (see `serialize`).
    static func write(_ reply: HTTPReply, minorVersion: Int, keepAlive: Bool, includeBody: Bool,
                      into buffer: inout ByteBuffer) {
        var body = reply.body
        if reply.status == .ok, minorVersion == 1 {
            buffer.writeBytes(okLine)
        } else {
            buffer.writeString("HTTP/1.\(minorVersion == 0 ? 0 : 1) \(reply.status.code) \(reply.status.reasonPhrase)\r\n")
        }
        if let type = reply.contentType {
            // Only a plain token survives: a handler's answer cannot inject header lines.
            let safe = type.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? type : "application/octet-stream"
            buffer.writeString("Content-Type: \(safe)\r\n" + commonHeaders)
        } else {
            buffer.writeBytes(standardHeaders)
        }
        if let retryAfter = reply.retryAfter {
            buffer.writeString("Retry-After: \(retryAfter)\r\n")
        }
        for (name, value) in reply.headers {
            buffer.writeString(name + ": " + value + "\r\n")
        }
        writeLength(body.readableBytes, minorVersion: minorVersion, keepAlive: keepAlive, into: &buffer)
        if includeBody { buffer.writeBuffer(&body) }
    }

    /// Appends the answer to an accepted publish, `200 OK` with `[1,"Sent","<timetoken>"]`, to
    /// `buffer`: the same bytes as `write` of `HTTPReply.sent(timetoken)`, without building the
    /// body in a buffer of its own first (the node's most frequent answer).
    static func writeSent(_ timetoken: Timetoken, minorVersion: Int, keepAlive: Bool, includeBody: Bool,
                          into buffer: inout ByteBuffer) {
        timetoken.withDecimalDigits { digits in
            if minorVersion == 1, keepAlive, includeBody, digits.count == usualSentDigits {
                buffer.writeBytes(usualSentHead)
                buffer.writeBytes(digits)
                buffer.writeStaticString(sentSuffix)
                return
            }
            if minorVersion == 1 {
                buffer.writeBytes(okLine)
            } else {
                buffer.writeStaticString("HTTP/1.0 200 OK\r\n")
            }
            buffer.writeBytes(standardHeaders)
            writeLength(sentPrefix.utf8CodeUnitCount + digits.count + sentSuffix.utf8CodeUnitCount,
                        minorVersion: minorVersion, keepAlive: keepAlive, into: &buffer)
            guard includeBody else { return }
            buffer.writeStaticString(sentPrefix)
            buffer.writeBytes(digits)
            buffer.writeStaticString(sentSuffix)
        }
    }

    /// How many digits the timetoken of a usual accepted publish has: every timetoken issued
    /// from 2001 to 2286.
    static let usualSentDigits = 17

    /// A usual accepted publish's answer up to its timetoken (HTTP/1.1, kept alive, with its body,
    /// a timetoken of `usualSentDigits`): the status line, the headers, the length and the body's
    /// start, all constant, in one copy rather than a write of each.
    private static let usualSentHead: [UInt8] = {
        var head = ByteBuffer()
        head.writeBytes(okLine)
        head.writeBytes(standardHeaders)
        writeLength(sentPrefix.utf8CodeUnitCount + usualSentDigits + sentSuffix.utf8CodeUnitCount,
                    minorVersion: 1, keepAlive: true, into: &head)
        head.writeStaticString(sentPrefix)
        return Array(head.readableBytesView)
    }()

    /// The body of an accepted publish's answer around its timetoken.
    static let sentPrefix: StaticString = #"[1,"Sent",""#
    static let sentSuffix: StaticString = #""]"#

    /// `Content-Length`, `Connection` when it is not the version's default, and the blank line.
    private static func writeLength(_ length: Int, minorVersion: Int, keepAlive: Bool, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("Content-Length: ")
        buffer.writeDecimal(length)
        if !keepAlive {
            buffer.writeStaticString("\r\nConnection: close")
        } else if minorVersion == 0 {
            buffer.writeStaticString("\r\nConnection: keep-alive")
        }
        buffer.writeStaticString("\r\n\r\n")
    }
}
