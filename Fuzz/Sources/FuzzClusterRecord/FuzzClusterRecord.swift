import FuzzSupport
import NIOCore
import PubNodeRedis

/// Records nodes exchange through Redis: decoding any bytes never traps, and a record that
/// decodes encodes back to bytes that decode to the same record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let record = try? ClusterRecord(decoding: ByteBuffer(bytes: bytes)) else { return 0 }
    let again = try? ClusterRecord(decoding: record.encoded)
    require(again == record, "a decoded record does not survive encoding")
    _ = try? RedisChannelLog.decodePush(ByteBuffer(bytes: bytes))
    return 0
}
