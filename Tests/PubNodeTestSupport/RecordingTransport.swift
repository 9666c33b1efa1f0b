import Foundation
import PubNodeClient
import Synchronization

/// A transport that passes requests on to another one and records each request sent and each
/// answer received, so a test can see what reached the node.
public final class RecordingTransport: PubNodeTransport {
    /// One request and, once it came, its answer's status.
    public struct Exchange: Sendable {
        /// The request as sent.
        public var request: TransportRequest
        /// The answer's status; nil while waiting or when no answer came.
        public var status: Int?
    }

    private let inner: any PubNodeTransport
    private let log = Mutex<[Exchange]>([])

    /// Records what goes through `inner` (real HTTP by default).
    public init(_ inner: any PubNodeTransport = URLSessionTransport()) {
        self.inner = inner
    }

    /// Sends `request` through the inner transport, recording it and its answer.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let index = log.withLock { log -> Int in
            log.append(Exchange(request: request))
            return log.count - 1
        }
        let response = try await inner.send(request)
        log.withLock { $0[index].status = response.status }
        return response
    }

    /// Every exchange so far, in the order the requests were sent.
    public var exchanges: [Exchange] { log.withLock { $0 } }

    /// The requests whose path ends with `suffix` that the node answered with 200.
    public func answered(pathSuffix suffix: String) -> [TransportRequest] {
        exchanges.filter { $0.status == 200 && $0.request.url.path.hasSuffix(suffix) }.map(\.request)
    }
}
