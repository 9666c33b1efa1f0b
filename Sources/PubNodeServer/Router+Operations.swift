import NIOCore
import PubNodeCore

extension Router {
    /// Headers of the console's files: no framing, no sniffing, scripts and styles from the node only.
    static let consoleHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// `GET /health`: the process is alive and serving (no token).
    func health() -> RouteAction {
        .reply(.json(#"{"status":"ok"}"#))
    }

    /// `GET /ready`: 200 while the node should receive traffic, else 503 with the reasons (no token).
    func ready() -> RouteAction {
        let reasons = operations.readiness.reasons
        guard !reasons.isEmpty else { return .reply(.json(#"{"status":"ready"}"#)) }
        let list = reasons.map(JSONText.string).joined(separator: ",")
        return .reply(.json(#"{"status":"not ready","reasons":[\#(list)]}"#, status: .serviceUnavailable))
    }

    /// `GET /metrics`: Prometheus' text format; behind the admin token except on the metrics port.
    /// Rendered off the event loop: a scrape reads every keyset, hook and the process' descriptors.
    func metrics(_ request: PubNubRequest) -> RouteAction {
        answering(.object(service: "Metrics")) { () throws(PubNodeError) in
            if !metricsListener { try node.authorizeAdmin(credential: Self.bearer(request.headers["authorization"])) }
            guard let metrics = operations.metrics else {
                return .reply(ErrorResponses.object(status: .notFound, message: "Metrics are turned off", service: "Metrics"))
            }
            let (node, operations, clientLimits) = (self.node, self.operations, self.clientLimits)
            return later(.object(service: "Metrics")) { () throws(PubNodeError) in
                let text = metrics.render(node: node, operations: operations, clientLimits: clientLimits)
                return HTTPReply(body: ByteBuffer(bytes: text), contentType: "text/plain; version=0.0.4; charset=utf-8")
            }
        }
    }

    /// `GET /console[/file]`: the web console's files (public: every piece of data it shows comes
    /// from endpoints behind the admin token or the keyset's own access rules).
    func console(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        guard request.method == .GET, s.count <= 2 else { return Self.noSuchEndpoint(service: "Console") }
        guard let console = operations.console else {
            return .reply(ErrorResponses.object(status: .notFound, message: "The console's files are not installed",
                                                service: "Console"))
        }
        let name = s.count == 2 && !s[1].isEmpty ? s[1] : "index.html"
        guard let asset = console.files[name] else { return Self.noSuchEndpoint(service: "Console") }
        var reply = HTTPReply(body: asset.body, contentType: asset.contentType)
        reply.headers = Self.consoleHeaders
        return .reply(reply)
    }
}
