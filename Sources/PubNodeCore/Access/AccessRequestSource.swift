/// What an access request can be read from, for the node's authorization point
/// (`Node.authorize(_:on:)`): the request itself, or an object that keeps one. The point reads the
/// operation first and the request only for the checks that need it, in place.
protocol AccessRequestSource {
    /// The request's operation.
    var operation: AccessRequest.Operation { get }
    /// Calls `body` with the request, without copying it.
    func withAccessRequest<Result>(_ body: (AccessRequest) throws(PubNodeError) -> Result) throws(PubNodeError) -> Result
}

extension AccessRequest: AccessRequestSource {
    /// Calls `body` with this request.
    func withAccessRequest<Result>(_ body: (AccessRequest) throws(PubNodeError) -> Result) throws(PubNodeError) -> Result {
        try body(self)
    }
}

extension PreparedSubscribe: AccessRequestSource {
    /// Always a subscribe's (`Node.prepare(_:)` builds it): told without reading the request.
    var operation: AccessRequest.Operation { .subscribe }

    /// Calls `body` with the access request kept, read in place.
    func withAccessRequest<Result>(_ body: (AccessRequest) throws(PubNodeError) -> Result) throws(PubNodeError) -> Result {
        try body(access)
    }
}
