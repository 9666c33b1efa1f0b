/// What a request wants to do, as presented to the authorization point.
public struct AccessRequest: Sendable {
    /// The kind of operation.
    public enum Operation: String, Sendable {
        case time, publish, signal, fire, subscribe, leave, channelGroupRead, channelGroupWrite
        case heartbeat, hereNow, whereNow, getState, setState
        case history, deleteHistory
    }

    /// The operation.
    public var operation: Operation
    /// The subscribe key named by the request, if any.
    public var subscribeKey: String?
    /// The publish key named by the request, if any.
    public var publishKey: String?
    /// Channels touched.
    public var channels: [String]
    /// Channel groups touched.
    public var groups: [String]
    /// The client's uuid, if given.
    public var uuid: String?
    /// The client's auth key or token (`auth=`), if given.
    public var authKey: String?

    /// Creates a request description.
    public init(operation: Operation, subscribeKey: String? = nil, publishKey: String? = nil,
                channels: [String] = [], groups: [String] = [], uuid: String? = nil, authKey: String? = nil) {
        self.operation = operation
        self.subscribeKey = subscribeKey
        self.publishKey = publishKey
        self.channels = channels
        self.groups = groups
        self.uuid = uuid
        self.authKey = authKey
    }
}

/// The single authorization point every request passes.
public protocol Authorizer: Sendable {
    /// Throws `PubNodeError.forbidden` to refuse the request.
    func authorize(_ request: AccessRequest) throws(PubNodeError)
}

/// Allows everything: the embedded default. Keys, signatures and tokens plug in here later.
public struct OpenAuthorizer: Authorizer {
    /// Creates the open policy.
    public init() {}

    /// Allows the request.
    public func authorize(_ request: AccessRequest) throws(PubNodeError) {}
}
