import Dispatch
import PubNodeServer
import Synchronization

extension Router {
    /// Routes `request` and returns its reply, awaiting a deferred one; nil for a long-poll.
    public func answer(_ request: PubNubRequest) async -> HTTPReply? {
        switch route(request) {
        case .reply(let reply): return reply
        case .sent(let timetoken): return .sent(timetoken)
        case .poll: return nil
        case .deferred(let start):
            return await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
        }
    }

    /// Routes `request` from synchronous code and returns its reply, waiting up to `seconds` for a
    /// deferred one (it is answered on another thread); nil for a long-poll or no answer in time.
    public func answerWaiting(_ request: PubNubRequest, seconds: Int = 10) -> HTTPReply? {
        switch route(request) {
        case .reply(let reply): return reply
        case .sent(let timetoken): return .sent(timetoken)
        case .poll: return nil
        case .deferred(let start):
            let answer = Mutex<HTTPReply?>(nil)
            let done = DispatchSemaphore(value: 0)
            start { reply in
                answer.withLock { $0 = reply }
                done.signal()
            }
            guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
            return answer.withLock { $0 }
        }
    }
}
