import NIOCore
import NIOExtras

/// Sits at the front of a connection's pipeline and tells the HTTP handler when the server starts
/// draining. `HTTPServerPipelineHandler` consumes `ChannelShouldQuiesceEvent` without passing it
/// on, so the parked long-poll further down would otherwise never learn of the shutdown.
final class QuiesceTap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let handler: PubNodeHTTPHandler

    init(handler: PubNodeHTTPHandler) {
        self.handler = handler
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            handler.quiesce()
        }
        context.fireUserInboundEventTriggered(event)
    }
}
