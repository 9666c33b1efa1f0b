import Foundation
import PubNodeClient
import Synchronization

/// A transport whose requests wait until the test answers them, one by one, in the order sent:
/// a long-poll stays open until the test says what it returns.
public final class AnsweringTransport: PubNodeTransport {
    private struct Pending {
        var request: TransportRequest
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var answered = false
    }

    private let state = Mutex<[Pending]>([])
    /// Answers given at once, without waiting for the test, to requests this accepts.
    private let automatic: @Sendable (TransportRequest) -> TransportResponse?

    /// A transport; `automatic` answers some requests at once (e.g. leaves), nil leaves them to the test.
    public init(automatic: @escaping @Sendable (TransportRequest) -> TransportResponse? = { _ in nil }) {
        self.automatic = automatic
    }

    /// Every request sent so far.
    public var requests: [TransportRequest] { state.withLock { $0.map(\.request) } }

    /// The requests still waiting for an answer.
    public var waiting: [TransportRequest] { state.withLock { $0.filter { !$0.answered }.map(\.request) } }

    /// Waits for the answer the test gives.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let response = automatic(request) {
            state.withLock { $0.append(Pending(request: request, answered: true)) }
            return response
        }
        let index = state.withLock { state -> Int in
            state.append(Pending(request: request))
            return state.count - 1
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    guard !state[index].answered else { return false }
                    state[index].continuation = continuation
                    return true
                }
                if !ready { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            finish(index, with: .failure(CancellationError()))
        }
    }

    /// Answers the oldest waiting request with `status`, `body` and `headers`; false when none waits.
    @discardableResult
    public func answer(status: Int = 200, body: String, headers: [String: String] = [:]) -> Bool {
        let index = state.withLock { state in state.firstIndex { !$0.answered && $0.continuation != nil } }
        guard let index else { return false }
        finish(index, with: .success(TransportResponse(status: status, body: Data(body.utf8), headers: headers)))
        return true
    }

    private func finish(_ index: Int, with result: Result<TransportResponse, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
            guard !state[index].answered else { return nil }
            state[index].answered = true
            defer { state[index].continuation = nil }
            return state[index].continuation
        }
        continuation?.resume(with: result)
    }
}
