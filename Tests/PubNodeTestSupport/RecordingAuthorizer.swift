import PubNodeCore
import Synchronization

/// Records every access request and refuses the listed operations with `forbidden`.
public final class RecordingAuthorizer: Authorizer {
    private let log = Mutex<[AccessRequest]>([])
    private let refused: Set<AccessRequest.Operation>

    /// An authorizer refusing `refused`.
    public init(refusing refused: Set<AccessRequest.Operation> = []) {
        self.refused = refused
    }

    /// Records `request`; refuses it when its operation is listed.
    public func authorize(_ request: AccessRequest) throws(PubNodeError) {
        log.withLock { $0.append(request) }
        if refused.contains(request.operation) { throw .forbidden("refused \(request.operation.rawValue)") }
    }

    /// Every request recorded.
    public var requests: [AccessRequest] { log.withLock { $0 } }

    /// The requests recorded since the last call, forgetting them.
    public func take() -> [AccessRequest] {
        log.withLock { log in
            defer { log = [] }
            return log
        }
    }
}
