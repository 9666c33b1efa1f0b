import FuzzSupport
import NIOCore
import PubNodeRedis

/// The RESP decoder: never traps, and decoding is the same whether the bytes arrive at once or
/// split at any point (the first input byte picks the split).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    var bounds = RESPDecoder.Bounds()
    bounds.maxBulkBytes = 1 << 16
    bounds.maxArrayCount = 1 << 12
    let whole = decodeAll([input], bounds: bounds)
    let split = Int(first) % (input.count + 1)
    let pieces = decodeAll([Array(input[..<split]), Array(input[split...])], bounds: bounds)
    require(whole == pieces, "split decoding differs: \(whole) vs \(pieces)")
    return 0
}

/// Values decoded from `chunks` fed one after another, and whether decoding failed.
func decodeAll(_ chunks: [[UInt8]], bounds: RESPDecoder.Bounds) -> [String] {
    var decoder = RESPDecoder(bounds: bounds)
    var buffer = ByteBuffer()
    var out: [String] = []
    for chunk in chunks {
        buffer.writeBytes(chunk)
        do {
            while let value = try decoder.decode(buffer: &buffer) { out.append("\(value)") }
        } catch {
            out.append("error")
            return out
        }
    }
    return out
}
