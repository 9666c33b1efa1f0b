import NIOCore

/// Decodes HTTP/1.x responses into whole `HTTPReply` values.
///
/// Supports `Content-Length`, chunked transfer coding and read-until-close bodies, and skips
/// interim 1xx responses. It is deliberately small: the client never sends `HEAD` or
/// `CONNECT`, so response framing depends on the response alone.
struct HTTPReplyDecoder: ByteToMessageDecoder {
    /// Whole responses.
    typealias InboundOut = HTTPReply

    /// Largest accepted response head.
    static let maxHeadBytes = 64 * 1024
    /// Largest accepted response body.
    static let maxBodyBytes = 16 * 1024 * 1024

    /// Creates a decoder.
    init() {}

    /// Emits every complete response in `buffer`.
    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let reply = try Self.next(from: &buffer, atEOF: false) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(reply))
        return .continue
    }

    /// At end of input, a body without length ends here.
    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        guard let reply = try Self.next(from: &buffer, atEOF: seenEOF) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(reply))
        return .continue
    }

    /// Takes the next complete response off the front of `buffer`, if there is one.
    static func next(from buffer: inout ByteBuffer, atEOF: Bool) throws -> HTTPReply? {
        while true {
            let result = buffer.withUnsafeReadableBytes { HTTPFrame.parse($0, atEOF: atEOF) }
            switch result {
            case .needMore:
                return nil
            case .invalid(let reason):
                throw HTTPReplyDecoderError(reason: reason)
            case .interim(let length):
                buffer.moveReaderIndex(forwardBy: length)
            case .complete(let frame):
                let base = buffer.readerIndex
                let headers = buffer.getSlice(at: base + frame.headers.lowerBound, length: frame.headers.count)
                let body: ByteBuffer
                if frame.body.count == 1, let range = frame.body.first {
                    body = buffer.getSlice(at: base + range.lowerBound, length: range.count) ?? ByteBuffer()
                } else {
                    var joined = ByteBuffer()
                    joined.reserveCapacity(frame.body.reduce(0) { $0 + $1.count })
                    for range in frame.body {
                        if var part = buffer.getSlice(at: base + range.lowerBound, length: range.count) {
                            joined.writeBuffer(&part)
                        }
                    }
                    body = joined
                }
                buffer.moveReaderIndex(forwardBy: frame.length)
                return HTTPReply(
                    statusCode: frame.status, headerBlock: headers ?? ByteBuffer(), body: body,
                    keepAlive: frame.keepAlive
                )
            }
        }
    }
}

/// A malformed or oversized response.
struct HTTPReplyDecoderError: Error, CustomStringConvertible {
    /// What was wrong.
    let reason: String
    /// Human-readable form.
    var description: String { "bad HTTP response: \(reason)" }
}
