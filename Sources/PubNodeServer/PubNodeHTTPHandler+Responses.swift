import NIOCore
import PubNodeCore

extension PubNodeHTTPHandler {
    /// Writes `reply` as one buffer, closes when the request or the server asks for it, and moves
    /// on to any request queued behind it.
    func write(_ reply: HTTPReply, context: ChannelHandlerContext, close: Bool = false) {
        let keepAlive = !close && keepsAlive
        recordAnswer(status: reply.status.code)
        var buffer = responseBuffer(capacity: HTTPResponseWriter.capacity(forBody: reply.body.readableBytes))
        // Read field by field: copying the whole head would retain each of its strings.
        HTTPResponseWriter.write(reply, minorVersion: state.answering?.minorVersion ?? 1, keepAlive: keepAlive,
                                 includeBody: state.answering?.isHEAD != true, into: &buffer)
        writeReusable(buffer, keepAlive: keepAlive, context: context)
    }

    /// Writes the answer to an accepted publish (`HTTPReply.sent`), serialized straight into the
    /// response buffer.
    func writeSent(_ timetoken: Timetoken, context: ChannelHandlerContext) {
        let keepAlive = keepsAlive
        recordAnswer(status: 200)
        var buffer = responseBuffer(capacity: HTTPResponseWriter.capacity(forBody: 40))
        HTTPResponseWriter.writeSent(timetoken, minorVersion: state.answering?.minorVersion ?? 1, keepAlive: keepAlive,
                                     includeBody: state.answering?.isHEAD != true, into: &buffer)
        writeReusable(buffer, keepAlive: keepAlive, context: context)
    }

    /// Whether the answer to the current request keeps the connection open (read field by field:
    /// no copy of the connection's state).
    var keepsAlive: Bool { !state.draining && !state.closeAfterAnswer && (state.answering?.keepAlive ?? false) }

    /// Most bytes a spare response buffer may hold on to: a large answer's buffer is let go (a
    /// publish's answer takes about 400).
    static let maxSpareResponseBytes = 1024

    /// An empty buffer for the next response: the last response's, when the socket has written
    /// and released it (its storage is then unique again and is reused without an allocation), or
    /// a new one. A buffer still queued in the channel is never written over: `clear` gives it
    /// fresh storage when it is shared.
    func responseBuffer(capacity: Int) -> ByteBuffer {
        guard var buffer = spareResponse else { return allocator.buffer(capacity: capacity) }
        spareResponse = nil
        buffer.clear(minimumCapacity: capacity)
        return buffer
    }

    /// Writes a response built in `responseBuffer(capacity:)` and keeps its buffer for the next.
    private func writeReusable(_ bytes: ByteBuffer, keepAlive: Bool, context: ChannelHandlerContext) {
        // Kept before the write: an answer to a request queued behind this one is written from
        // inside `writeSerialized`, and takes it then.
        spareResponse = keepAlive && bytes.capacity <= Self.maxSpareResponseBytes ? bytes : nil
        writeSerialized(bytes, keepAlive: keepAlive, context: context)
    }

    /// Writes a complete serialized response, then closes or moves on to queued requests.
    func writeSerialized(_ bytes: ByteBuffer, keepAlive: Bool, context: ChannelHandlerContext) {
        // Kept alive (the common case), the write takes no promise: no future is made per response.
        clocks.active = true
        let done = keepAlive ? nil : context.writeAndFlush(wrapOutboundOut(bytes))
        if keepAlive { context.writeAndFlush(wrapOutboundOut(bytes), promise: nil) }
        var refused = false
        if case .discarding = state.phase {
            refused = true
        } else {
            state.phase = .idle
            state.endRequest()
        }
        if let done {
            // The connection's last answer: nothing read after it is handled (RFC 9112 section 9.6).
            state.closing = true
            state.queued.removeAll()
            clocks.arrivingSince = nil
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            done.assumeIsolated().whenComplete { _ in
                if refused { handler.value.lingeringClose(context: context) } else { context.close(promise: nil) }
            }
        } else if !state.queued.isEmpty {
            replayQueued()
        }
    }
}
