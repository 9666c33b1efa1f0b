import NIOCore
import PubNodeCore

/// Renders subscribe responses into NIO buffers through `SubscribeEnvelope`, the envelope's one owner.
enum SubscribeResponse {
    /// Writes the response for `batch` (its messages, its cursor and any gaps) into a new buffer.
    static func render(_ batch: DeliveryBatch, region: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: SubscribeEnvelope.capacity(for: batch.deliveries) + batch.gaps.count * 96)
        SubscribeEnvelope.write(batch.deliveries, next: batch.next, region: region, gaps: batch.gaps, into: &buffer)
        return buffer
    }
}

extension ByteBuffer: ByteSink {
    /// Appends raw bytes.
    public mutating func append(bytes: UnsafeRawBufferPointer) {
        writeBytes(bytes)
    }
}
