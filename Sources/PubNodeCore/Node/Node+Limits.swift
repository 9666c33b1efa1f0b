extension Node {
    /// Checks the operator's credential (`Authorization: Bearer …`) through the node's single
    /// authorization point, for operator endpoints served outside the node (the HTTP front's
    /// client limits): `adminDisabled` without an admin token, `unauthorized` for a wrong one.
    public func authorizeAdmin(credential: String?) throws(PubNodeError) {
        try authorizeOperator(credential)
    }
}
