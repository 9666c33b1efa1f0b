/// Every way a request can be refused by the domain; the HTTP front maps each to one PubNub-shaped response.
public enum PubNodeError: Error, Sendable, Equatable {
    /// The publish or subscribe key is not configured on this node.
    case invalidKey
    /// A channel name is empty, too long, malformed or has a forbidden character.
    case invalidChannel(String, NameRules.Violation)
    /// A group name is empty, too long or has a forbidden character.
    case invalidGroup(String, NameRules.Violation)
    /// A publish names a wildcard channel.
    case publishToWildcard(String)
    /// The payload is not valid JSON.
    case invalidJSON
    /// The `meta` parameter is not valid JSON.
    case invalidMeta
    /// The message is over the size limit.
    case messageTooLarge(limit: Int)
    /// The signal payload is over its size limit.
    case signalTooLarge(limit: Int)
    /// A subscribe names too many channels.
    case tooManyChannels(limit: Int)
    /// A subscribe names too many groups.
    case tooManyGroups(limit: Int)
    /// A group would hold more than the allowed number of channels.
    case groupFull(limit: Int)
    /// A request parameter is malformed; the text names it.
    case invalidParameter(String)
    /// Presence state is not a JSON object (or not keyed by channel where that form is expected).
    case invalidState(String)
    /// A presence state object is over its size limit.
    case stateTooLarge(limit: Int)
    /// The request is refused by the authorization point.
    case forbidden(String)
    /// History is not kept for this subscribe key.
    case storageDisabled
    /// The history store failed to read or write; the text says why.
    case storageFailed(String)
    /// The operator's endpoints are off: no admin token is configured.
    case adminDisabled
    /// The operator's credential is missing or wrong; the text says which.
    case unauthorized(String)
    /// The resource asked for does not exist; the text names it.
    case notFound(String)
    /// A before hook refused the message (or failed under a fail-closed policy): its status and text.
    case refusedByHook(status: Int, text: String)
}
