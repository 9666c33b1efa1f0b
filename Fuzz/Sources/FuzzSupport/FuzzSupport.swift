/// Helpers shared by the fuzz targets: reading libFuzzer's input and stating properties.

/// The fuzz input as an array (libFuzzer may pass a null pointer with size 0).
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the run with `message` when `condition` is false; libFuzzer records the input as a crash.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("property violated: \(message())") }
}

/// Splits `bytes` at the first zero byte: the part before and the part after (empty when none).
public func splitAtZero(_ bytes: [UInt8]) -> ([UInt8], [UInt8]) {
    guard let zero = bytes.firstIndex(of: 0) else { return (bytes, []) }
    return (Array(bytes[..<zero]), Array(bytes[(zero + 1)...]))
}

/// Percent-encodes every byte outside `A-Z a-z 0-9 - . _ ~` (RFC 3986 unreserved), uppercase hex.
public func percentEncode(_ bytes: some Sequence<UInt8>) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"):
            out.append(byte)
        default:
            out.append(UInt8(ascii: "%"))
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// Standard base64 with padding (to wrap fuzzed CBOR bytes as token text).
public func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let chunk = bytes[index..<min(index + 3, bytes.count)]
        var word: UInt32 = 0
        for (offset, byte) in chunk.enumerated() { word |= UInt32(byte) << (16 - 8 * UInt32(offset)) }
        for position in 0..<4 {
            if position <= chunk.count {
                out.append(alphabet[Int((word >> (18 - 6 * UInt32(position))) & 0x3f)])
            } else {
                out.append(UInt8(ascii: "="))
            }
        }
        index += 3
    }
    return String(decoding: out, as: UTF8.self)
}
