import NIOCore
import PubNodeCore

extension Router {
    /// Access Manager v3, both signed with the keyset's secret:
    /// - `POST /v3/pam/{sub}/grant` with the grant's JSON body: answers the token;
    /// - `DELETE /v3/pam/{sub}/grant/{token}`: revokes it.
    func accessManager(_ request: PubNubRequest) -> RouteAction {
        let s = request.segments
        return answering(.object(service: "Access Manager")) { () throws(PubNodeError) in
            switch (request.method, s.count) {
            case (.POST, 4):
                let body = request.body.map { Array($0.readableBytesView) } ?? []
                let token = try node.grantToken(TokenRequest(subscribeKey: s[2], content: body, uuid: Self.uuid(request),
                                                             signature: request.signed))
                return .reply(.json(#"{"data":{"message":"Success","token":\#(JSONText.string(token))},"service":"Access Manager","status":200}"#))
            case (.DELETE, 5):
                try node.revokeToken(TokenRequest(subscribeKey: s[2], content: Array(s[4].utf8), uuid: Self.uuid(request),
                                                  signature: request.signed))
                return .reply(.json(#"{"data":{"message":"Success"},"service":"Access Manager","status":200}"#))
            default:
                return Self.noSuchEndpoint(service: "Access Manager")
            }
        }
    }
}
