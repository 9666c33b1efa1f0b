import NIOCore

/// One RESP2 value, as Redis answers: the decoded form of a reply or a pushed pub/sub message.
public enum RESPValue: Sendable, Equatable {
    /// `+OK`: a status line.
    case simpleString(String)
    /// `-ERR …`: an error reply (Redis's words).
    case error(String)
    /// `:42`: a signed integer.
    case integer(Int64)
    /// `$n\r\n…`: binary-safe bytes.
    case bulkString(ByteBuffer)
    /// `$-1` or `*-1`: no value.
    case null
    /// `*n`: an array of values.
    case array([RESPValue])
}

extension RESPValue {
    /// The value as text: simple and bulk strings (UTF-8) and integers; nil otherwise.
    public var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes): String(buffer: bytes)
        case .integer(let value): String(value)
        default: nil
        }
    }

    /// The value as an integer: integers and decimal strings; nil otherwise.
    public var int: Int64? {
        switch self {
        case .integer(let value): value
        case .bulkString, .simpleString: string.flatMap { Int64($0) }
        default: nil
        }
    }

    /// The bytes of a bulk string; nil otherwise.
    public var bytes: ByteBuffer? {
        if case .bulkString(let bytes) = self { return bytes }
        return nil
    }

    /// The elements of an array; nil otherwise.
    public var array: [RESPValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// True for `.null`.
    public var isNull: Bool { self == .null }
}

/// One argument of a command: Redis commands are arrays of bulk strings.
public enum RESPArgument: Sendable, ExpressibleByStringLiteral {
    /// UTF-8 text.
    case text(String)
    /// Raw bytes (payloads), written as they are.
    case bytes(ByteBuffer)
    /// A decimal integer.
    case integer(Int64)

    /// Text from a literal.
    public init(stringLiteral value: String) { self = .text(value) }
}

extension ByteBuffer {
    /// Writes `arguments` as one RESP command: `*<n>\r\n` then `$<len>\r\n<bytes>\r\n` for each.
    public mutating func writeRESPCommand(_ arguments: [RESPArgument]) {
        writeStaticString("*")
        writeString(String(arguments.count))
        writeStaticString("\r\n")
        for argument in arguments {
            switch argument {
            case .text(let text):
                writeRESPBulkHeader(text.utf8.count)
                writeString(text)
            case .bytes(let bytes):
                writeRESPBulkHeader(bytes.readableBytes)
                writeImmutableBuffer(bytes)
            case .integer(let value):
                let text = String(value)
                writeRESPBulkHeader(text.utf8.count)
                writeString(text)
            }
            writeStaticString("\r\n")
        }
    }

    private mutating func writeRESPBulkHeader(_ length: Int) {
        writeStaticString("$")
        writeString(String(length))
        writeStaticString("\r\n")
    }
}
