import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PubNodeCore

/// Sends signed webhook requests, bounded in every direction: a deadline per call, redirects
/// never followed (a 3xx is a failed call), replies read up to a size limit, and hosts checked
/// against the allow-list before any connection is made.
public final class WebhookClient: Sendable {
    /// What an endpoint answered.
    public struct Reply: Sendable {
        /// HTTP status.
        public var status: Int
        /// The `Content-Type` header, if any.
        public var contentType: String?
        /// The body, at most the endpoint's `maxReplyBytes`.
        public var body: [UInt8]
    }

    /// The hosts calls may go to.
    public let allowList: HostAllowList
    private let http: HTTPClient

    /// Creates a client on `eventLoopGroup` (NIO's shared group by default) keeping at most
    /// about `connectionsPerHost` connections to one host.
    public init(allowList: HostAllowList = HostAllowList(), connectionsPerHost: Int = 8,
                eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup) {
        self.allowList = allowList
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(2)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(connectionsPerHost, 1)))
        configuration.httpVersion = .http1Only
        self.http = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }

    /// Checks that `url` is an http(s) URL whose host is allowed.
    public func check(_ url: String) throws(HookFailure) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = parsed.host, !host.isEmpty else {
            throw .notAllowed("'\(url)' (webhook URLs must be http or https with a host)")
        }
        guard allowList.allows(host: host) else { throw .notAllowed(url) }
    }

    /// POSTs `body` (JSON) to `url`, signed with `secret` when given, with extra `headers`.
    /// Throws for unreachable endpoints, timeouts and oversized replies; any status is returned.
    /// With `readBody` false the reply's body is read and thrown away, whatever its size.
    public func post(_ body: [UInt8], to url: String, secret: String?, headers: [(String, String)] = [],
                     timeout: Duration, maxReplyBytes: Int, readBody: Bool = true) async throws(HookFailure) -> Reply {
        try check(url)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "PubNode-Hooks/1")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let secret { request.headers.add(name: WebhookSignature.header, value: WebhookSignature.sign(body, secret: secret)) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        let deadline = NIODeadline.now() + .nanoseconds(max(nanoseconds, 1))
        do {
            let response = try await http.execute(request, deadline: deadline)
            guard readBody else {
                for try await _ in response.body {}
                return Reply(status: Int(response.status.code), contentType: nil, body: [])
            }
            var buffer: ByteBuffer
            do { buffer = try await response.body.collect(upTo: maxReplyBytes) } catch is NIOTooManyBytesError {
                throw HookFailure.replyTooLarge(limit: maxReplyBytes)
            }
            return Reply(status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
                         body: buffer.readBytes(length: buffer.readableBytes) ?? [])
        } catch let failure as HookFailure {
            throw failure
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout
                    || error == .connectTimeout || error == .writeTimeout {
            throw .timedOut
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// Closes the client's connections.
    public func shutdown() async {
        try? await http.shutdown()
    }
}
