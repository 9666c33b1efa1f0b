import NIOCore
import PubNodeCore

extension Router {
    /// Access Manager v3, both signed with the keyset's secret:
    /// - `POST /v3/pam/{sub}/grant` with the grant's JSON body: answers the token;
    /// - `DELETE /v3/pam/{sub}/grant/{token}`: revokes it.
    func accessManager(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        if request.method == .DELETE, s.count == 5 {
            // The revocation is recorded in the access store before the answer: off the event loop.
            let node = self.node, revoke = TokenRequest(subscribeKey: s[2], content: Array(s[4].utf8), uuid: Self.uuid(request),
                                                        signature: request.signed)
            return later(.object(service: "Access Manager")) { () throws(PubNodeError) in
                try await node.revokeToken(revoke)
                return .json(#"{"data":{"message":"Success"},"service":"Access Manager","status":200}"#)
            }
        }
        return answering(.object(service: "Access Manager")) { () throws(PubNodeError) in
            switch (request.method, s.count) {
            case (.POST, 4):
                let body = request.body.map { Array($0.readableBytesView) } ?? []
                let token = try node.grantToken(TokenRequest(subscribeKey: s[2], content: body, uuid: Self.uuid(request),
                                                             signature: request.signed))
                return .reply(.json(#"{"data":{"message":"Success","token":\#(JSONText.string(token))},"service":"Access Manager","status":200}"#))
            default:
                return Self.noSuchEndpoint(service: "Access Manager")
            }
        }
    }
}
