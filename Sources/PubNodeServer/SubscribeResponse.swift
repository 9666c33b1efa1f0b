import NIOCore
import PubNodeCore

/// Renders `{"t":{"t":"<tt>","r":<region>},"m":[…]}` by copying each message's pre-rendered envelope.
enum SubscribeResponse {
    /// Writes the response for `deliveries` with cursor `next` into a new buffer.
    static func render(_ deliveries: [Delivery], next: Timetoken, region: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        var capacity = 64
        for delivery in deliveries { capacity += delivery.message.envelope.count + (delivery.match?.utf8.count ?? 0) + 16 }
        var buffer = allocator.buffer(capacity: capacity)
        buffer.writeString(#"{"t":{"t":""#)
        buffer.writeString(next.description)
        buffer.writeString(#"","r":"#)
        buffer.writeString(String(region))
        buffer.writeString(#"},"m":["#)
        var first = true
        for delivery in deliveries {
            if !first { buffer.writeInteger(UInt8(ascii: ",")) }
            first = false
            buffer.writeBytes(delivery.message.envelope)
            if let match = delivery.match {
                buffer.writeString(#","b":"#)
                buffer.writeString(JSONText.string(match))
            }
            buffer.writeInteger(UInt8(ascii: "}"))
        }
        buffer.writeString("]}")
        return buffer
    }
}
