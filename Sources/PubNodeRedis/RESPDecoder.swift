import NIOCore

/// Decodes RESP2 values from a byte stream (a `NIOSingleStepByteToMessageDecoder`).
///
/// A value is produced only once it has fully arrived; until then nothing is consumed and the
/// decoder is asked again with more bytes. Everything the peer controls is bounded: a bulk string's
/// length, an array's element count, nesting depth and a line's length. A violation throws
/// `RedisError.protocolViolation`, which closes the connection: a stream that broke framing
/// cannot be resynchronized.
public struct RESPDecoder: NIOSingleStepByteToMessageDecoder {
    /// The decoded value.
    public typealias InboundOut = RESPValue

    /// Bounds on what one value may claim.
    public struct Bounds: Sendable {
        /// The longest bulk string, in bytes.
        public var maxBulkBytes = 64 << 20
        /// The most elements of one array.
        public var maxArrayCount = 1 << 20
        /// The deepest nesting of arrays.
        public var maxDepth = 16
        /// The longest simple line (status, error, integer or length).
        public var maxLineBytes = 64 << 10

        /// Redis-sized defaults.
        public init() {}
    }

    let bounds: Bounds

    /// A decoder with `bounds`.
    public init(bounds: Bounds = Bounds()) { self.bounds = bounds }

    /// Decodes one complete value, or returns nil (consuming nothing) while it is incomplete.
    public mutating func decode(buffer: inout ByteBuffer) throws -> RESPValue? {
        var cursor = buffer.readerIndex
        guard let value = try parse(buffer, at: &cursor, depth: 0) else { return nil }
        buffer.moveReaderIndex(to: cursor)
        return value
    }

    /// At end of stream, a partial value is an error (the connection is closing anyway).
    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> RESPValue? {
        try decode(buffer: &buffer)
    }

    private func parse(_ buffer: ByteBuffer, at cursor: inout Int, depth: Int) throws -> RESPValue? {
        guard let type = buffer.getInteger(at: cursor, as: UInt8.self) else { return nil }
        var position = cursor + 1
        guard let line = try line(buffer, at: &position) else { return nil }
        switch type {
        case UInt8(ascii: "+"):
            cursor = position
            return .simpleString(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "-"):
            cursor = position
            return .error(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: ":"):
            cursor = position
            return .integer(try Self.integer(line))
        case UInt8(ascii: "$"):
            let length = try Self.integer(line)
            if length == -1 { cursor = position; return .null }
            guard length >= 0, length <= bounds.maxBulkBytes else { throw RedisError.protocolViolation("bulk length \(length)") }
            let count = Int(length)
            guard buffer.writerIndex - position >= count + 2 else { return nil }
            guard buffer.getInteger(at: position + count, as: UInt8.self) == 13,
                  buffer.getInteger(at: position + count + 1, as: UInt8.self) == 10 else {
                throw RedisError.protocolViolation("bulk string not followed by CRLF")
            }
            let bytes = buffer.getSlice(at: position, length: count)!
            cursor = position + count + 2
            return .bulkString(bytes)
        case UInt8(ascii: "*"):
            let count = try Self.integer(line)
            if count == -1 { cursor = position; return .null }
            guard count >= 0, count <= bounds.maxArrayCount else { throw RedisError.protocolViolation("array count \(count)") }
            guard depth < bounds.maxDepth else { throw RedisError.protocolViolation("arrays nested deeper than \(bounds.maxDepth)") }
            // Each element takes at least 3 bytes: a count that cannot have arrived yet is not reserved.
            var values: [RESPValue] = []
            values.reserveCapacity(min(Int(count), (buffer.writerIndex - position) / 3 + 1))
            for _ in 0..<count {
                guard let value = try parse(buffer, at: &position, depth: depth + 1) else { return nil }
                values.append(value)
            }
            cursor = position
            return .array(values)
        default:
            throw RedisError.protocolViolation("unknown type byte \(type)")
        }
    }

    /// The bytes before the next CRLF (advancing past it), or nil when it has not arrived.
    private func line(_ buffer: ByteBuffer, at position: inout Int) throws -> [UInt8]? {
        let available = buffer.writerIndex - position
        let scan = min(available, bounds.maxLineBytes + 2)
        guard let view = buffer.viewBytes(at: position, length: scan) else { return nil }
        guard let cr = view.firstIndex(of: 13) else {
            if available > bounds.maxLineBytes + 1 { throw RedisError.protocolViolation("line longer than \(bounds.maxLineBytes) bytes") }
            return nil
        }
        let next = view.index(after: cr)
        guard next < view.endIndex else { return nil }
        guard view[next] == 10 else { throw RedisError.protocolViolation("CR not followed by LF") }
        let line = Array(view[view.startIndex..<cr])
        position += line.count + 2
        return line
    }

    private static func integer(_ line: [UInt8]) throws -> Int64 {
        guard !line.isEmpty, line.count <= 20, let value = Int64(String(decoding: line, as: UTF8.self)) else {
            throw RedisError.protocolViolation("not an integer")
        }
        return value
    }
}
