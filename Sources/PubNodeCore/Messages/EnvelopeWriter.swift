/// Writes an envelope's bytes into scratch storage sized for the most they can take
/// (`SubscribeEnvelope.open`): the parts are plain copies, with none of an array's per-append
/// uniqueness and capacity checks, and the result is copied out once.
///
/// Invariant: every write stays within the storage given; a write past its end stops the process
/// (`precondition`) rather than writing out of bounds, so a bound too small is a crash, never a
/// corruption.
struct EnvelopeWriter {
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// How many bytes are written.
    private(set) var count = 0

    /// A writer at the start of `storage`.
    init(_ storage: UnsafeMutableBufferPointer<UInt8>) {
        self.storage = storage
    }

    /// Room for `bytes` more bytes, checked.
    private func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(bytes <= storage.count - count, "envelope writer past its storage")
        return storage.baseAddress! + count
    }

    /// Writes `bytes`.
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(reserve(bytes.count)).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Writes a literal's bytes.
    mutating func write(_ literal: StaticString) {
        write(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Writes `bytes`.
    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes one byte.
    mutating func write(byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    /// Writes `value`'s decimal digits (at most 20; `DecimalDigits`).
    mutating func write(decimal value: UInt64) {
        let digits = DecimalDigits.count(of: value)
        DecimalDigits.write(value, count: digits, to: reserve(digits))
        count += digits
    }

    /// Writes `value` as a quoted JSON string, escaped as `JSONText.appendString(_:to:)` escapes
    /// it: at most `bound(quoted:)` bytes.
    mutating func write(quoted value: String) {
        Self.withBytes(of: value) { bytes in
            write(byte: UInt8(ascii: "\""))
            if bytes.contains(where: JSONText.needsEscape) {
                for byte in bytes { writeEscaped(byte) }
            } else {
                write(UnsafeRawBufferPointer(bytes))
            }
            write(byte: UInt8(ascii: "\""))
        }
    }

    /// Calls `body` with `value`'s UTF-8 bytes: in place when they are contiguous (a native
    /// string's are), from a copy otherwise.
    private static func withBytes<R>(of value: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = value.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(value.utf8).withUnsafeBufferPointer(body)
    }

    /// Writes one byte of a JSON string's content, escaped when it must be (`JSONText.escape`).
    private mutating func writeEscaped(_ byte: UInt8) {
        JSONText.escape(byte) { write(byte: $0) }
    }

    /// The most bytes `write(quoted:)` writes for `value`: its quotes, and six for each byte
    /// (`\u00XX`).
    static func bound(quoted value: String) -> Int {
        value.utf8.count &* 6 &+ 2
    }
}
