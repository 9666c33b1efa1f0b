import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport, on `URLSession` (FoundationNetworking on Linux).
///
/// A cancelled request returns `CancellationError` at once. On Apple platforms the underlying data
/// task is cancelled too. FoundationNetworking traps when a cancel races with a task's completion,
/// so on Linux an abandoned request is left to finish on its own (a restarted long-poll's previous
/// request ends when the node answers it), and the default session allows 64 connections per host.
public final class URLSessionTransport: PubNodeTransport {
    /// The session requests go through.
    public let session: URLSession

    /// A transport on `session`; the default is an ephemeral session allowing 64 connections per host.
    public init(session: URLSession? = nil) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 64
            self.session = URLSession(configuration: configuration)
        }
    }

    /// Sends `request` with `URLSession`.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout
        urlRequest.httpBody = request.body
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let slot = RequestSlot()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        slot.finish(.failure(error))
                    } else {
                        let http = response as? HTTPURLResponse
                        var headers: [String: String] = [:]
                        for (name, value) in http?.allHeaderFields ?? [:] {
                            headers[String(describing: name)] = String(describing: value)
                        }
                        slot.finish(.success(TransportResponse(status: http?.statusCode ?? 0, body: data ?? Data(),
                                                               headers: headers)))
                    }
                }
                slot.start(task, continuation)
            }
        } onCancel: {
            slot.cancel()
        }
    }
}

/// One request's continuation and task: resumes the continuation exactly once, whichever of
/// completion and cancellation comes first.
private final class RequestSlot: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var cancelled = false
    }
    private let state = Locked(State())

    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<TransportResponse, any Error>) {
        let cancelled = state.withLock { state -> Bool in
            guard !state.cancelled else { return true }
            state.task = task
            state.continuation = continuation
            return false
        }
        if cancelled {
            continuation.resume(throwing: CancellationError())
        } else {
            task.resume()
        }
    }

    func finish(_ result: Result<TransportResponse, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    func cancel() {
        let (task, continuation) = state.withLock { state in
            state.cancelled = true
            defer { state.continuation = nil }
            return (state.task, state.continuation)
        }
        continuation?.resume(throwing: CancellationError())
        #if !canImport(FoundationNetworking)
        task?.cancel()
        #else
        _ = task
        #endif
    }
}
