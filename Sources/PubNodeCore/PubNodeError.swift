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
    /// The keyset holds as many channel groups as it may.
    case keysetGroupsFull(limit: Int)
    /// A uuid would hold presence state on more channels than it may.
    case tooManyStates(limit: Int)
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
    /// Access Manager refused: the caller's token lacks a permission on these channels, groups and
    /// uuids (named in PubNub's 403 body), or a request that needs a token carries none.
    case accessDenied(channels: [String], groups: [String], uuids: [String])
    /// Access Manager refused the caller's credentials themselves, with PubNub's message: a signature
    /// that does not match or is stale, a revoked, expired or foreign token, a uuid the token is not
    /// for, a disabled keyset.
    case accessRefused(String)
    /// An Access Manager request (grant, revoke) is malformed: PubNub's 400 body names the `source`
    /// endpoint and where the problem is (`location` in `locationType`: body, path, query).
    case accessInvalid(message: String, source: String, detail: String, location: String, locationType: String)
    /// The request conflicts with what is stored (a message action already added): 409, the text as PubNub words it.
    case conflict(String)
    /// A well-formed request the node will not carry out (no such message action to delete, or it
    /// belongs to another uuid): 400, the text as PubNub words it.
    case rejected(String)
    /// A rate limit was reached; the caller may retry after `retryAfter` seconds.
    case tooManyRequests(retryAfter: Int)
    /// A subscribe filter expression (`filter-expr`) is malformed or over its bounds; the text says why.
    case invalidFilter(String)
    /// The App Context object asked for does not exist.
    case objectNotFound
    /// An App Context set's `If-Match` names an eTag the object no longer has (or it has none).
    case objectChanged
    /// A shared engine the operation needs (a cluster's Redis) is unreachable: 503, retry later.
    case unavailable(String)
}
