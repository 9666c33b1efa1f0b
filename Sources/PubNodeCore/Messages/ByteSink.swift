/// Where rendered bytes go: the transport's output buffer, so a response is written once, without an
/// intermediate copy. The HTTP front conforms its buffer type.
public protocol ByteSink {
    /// Appends raw bytes.
    mutating func append(bytes: UnsafeRawBufferPointer)
}

extension ByteSink {
    /// Appends an array's bytes.
    @inlinable
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(bytes: $0) }
    }

    /// Appends a string's UTF-8 bytes.
    @inlinable
    public mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Appends one byte.
    @inlinable
    public mutating func append(byte: UInt8) {
        withUnsafeBytes(of: byte) { append(bytes: $0) }
    }
}

extension Array: ByteSink where Element == UInt8 {
    /// Appends raw bytes to the array.
    public mutating func append(bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes)
    }
}
