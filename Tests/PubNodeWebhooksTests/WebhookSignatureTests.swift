import PubNodeWebhooks
import XCTest

final class WebhookSignatureTests: XCTestCase {
    /// RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    func testMatchesRFC4231Vector() {
        let body = Array("what do ya want for nothing?".utf8)
        XCTAssertEqual(WebhookSignature.sign(body, secret: "Jefe"),
                       "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testVerifyRejectsAlteredBodyOrSecret() {
        let body = Array(#"{"event":"after-publish"}"#.utf8)
        let signature = WebhookSignature.sign(body, secret: "s3cret")
        XCTAssertTrue(WebhookSignature.verify(body, secret: "s3cret", signature: signature))
        XCTAssertFalse(WebhookSignature.verify(body + [0x20], secret: "s3cret", signature: signature))
        XCTAssertFalse(WebhookSignature.verify(body, secret: "other", signature: signature))
        XCTAssertFalse(WebhookSignature.verify(body, secret: "s3cret", signature: "sha256=00"))
    }
}
