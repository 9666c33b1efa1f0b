/// The policy behind the node's single authorization point: `Node` calls it exactly once per
/// operation, before touching anything, with every resource the operation needs.
public protocol Authorizer: Sendable {
    /// Throws `PubNodeError.forbidden` to refuse the request.
    func authorize(_ request: AccessRequest) throws(PubNodeError)
}

/// Allows every keyset operation: the embedded default keyset policy. Keys, signatures and tokens
/// plug in as other policies. The operator's endpoints never reach a policy: `NodeAuthorizer`
/// guards them with the admin token.
public struct OpenAuthorizer: Authorizer {
    /// Creates the open policy.
    public init() {}

    /// Allows the request.
    public func authorize(_ request: AccessRequest) throws(PubNodeError) {}
}

/// Guards the operator's endpoints with a bearer token and hands every other request to the
/// keyset policy: what `Node` consults, whatever policy it was given.
public struct NodeAuthorizer: Authorizer {
    /// The keyset policy.
    public var policy: any Authorizer {
        didSet { allowsEveryKeysetOperation = policy is OpenAuthorizer }
    }
    /// The operator's token; nil refuses the operator's endpoints.
    public var adminToken: String?

    /// Creates the node's authorization point.
    public init(policy: any Authorizer = OpenAuthorizer(), adminToken: String? = nil) {
        self.policy = policy
        self.allowsEveryKeysetOperation = policy is OpenAuthorizer
        self.adminToken = adminToken
    }

    /// Whether every request but the operator's (`administer`) is allowed without asking: the
    /// policy is the open one. The node's authorization point then does not read or copy a
    /// request only to be told yes (`Node.authorize(_:on:)`).
    /// Told once per policy: a cast on every request would cost more than the call it saves.
    public private(set) var allowsEveryKeysetOperation: Bool

    /// Checks the admin token for `administer`, otherwise asks the policy.
    public func authorize(_ request: AccessRequest) throws(PubNodeError) {
        guard request.operation == .administer else { return try policy.authorize(request) }
        guard let adminToken else { throw .adminDisabled }
        guard let credential = request.adminCredential, Self.constantTimeEqual(credential, adminToken) else {
            throw .unauthorized("Missing or wrong admin token")
        }
    }

    /// Compares without an early exit, not even on a length mismatch, so timing reveals neither
    /// how much of a guess was right nor the token's length (the loop runs over the longer one).
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference: UInt8 = x.count == y.count ? 0 : 1
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
