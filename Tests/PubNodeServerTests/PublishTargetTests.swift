import PubNodeCore
@testable import PubNodeServer
import XCTest

/// A publish read straight off its target (`PublishTarget`) is the request the general decoding
/// (`PubNubRequest` and `Router.publishRequest`) reads from the same target, and whatever the
/// shortcut leaves alone is still answered by the router, refusals included.
final class PublishTargetTests: XCTestCase {
    private let prefix = "/publish/demo/demo/0/ch/0/"

    /// Targets of every shape: the shortcut must read each exactly as the general decoding does,
    /// or leave it to the router.
    private var targets: [String] {
        let message = prefix + "%22hi%22"
        return [
            message, message + "?", message + "?uuid=u", message + "?&&uuid=u&", message + "?uuid=a&uuid=b",
            message + "?uuid", message + "?=x&uuid=u", message + "?uuid=a=b", message + "?store=0&norep=true",
            message + "?store=TRUE&norep=False", message + "?store=yes", message + "?norep=2",
            message + "?ttl=5", message + "?ttl=-1", message + "?ttl=abc", message + "?ttl=",
            message + "?meta=%7B%22k%22%3A1%7D", message + "?custom_message_type=text-message",
            message + "?auth=tok%2Ben", message + "?signature=v2.abc&timestamp=1", message + "?%75uid=x",
            message + "?pnsdk=PubNub-Python%2F10.8.0&requestid=abc&instanceid=i", message + "?pnsdk=%ZZ",
            message + "?x=%C3", message + "?uuid=%C3%A9", message + "?uuid=%C3",
            "/signal/demo/demo/0/ch/0/1?uuid=u", "/signal/demo/demo/0/ch/0/1?store=1",
            prefix + "%7B%22a%22%3A%22%C3%A9%22%7D", prefix + "%C3", prefix + "%ZZ", prefix + "%2", prefix + "a+b",
            prefix, prefix + "1/extra", "/publish/demo/demo/0/ch/0", "/publish//demo/0/ch/0/1",
            "/publish/demo/demo/0/c%2Fh/0/1", "/publish/demo/demo/0%ZZ/ch/0/1", "/publish/demo/demo/0/ch/x%ZZ/1",
            "/publish/de%6Do/demo/0/ch/0/1", "/publishx/demo/demo/0/ch/0/1", "/%70ublish/demo/demo/0/ch/0/1",
            "/publish/demo/demo/0/ch/0/1?tt=1#frag",
        ]
    }

    func testTheShortcutReadsWhatTheGeneralDecodingReads() throws {
        var taken = 0
        for target in targets {
            let general: PublishRequest? = {
                guard let request = try? PubNubRequest(method: .GET, uri: target), request.segments.count == 7,
                      let kind: MessageKind = ["publish": .message, "signal": .signal][request.segments[0]]
                else { return nil }
                return try? Router.publishRequest(request, kind: kind)
            }()
            guard let fast = PublishTarget.request(target) else { continue }
            taken += 1
            let expected = try XCTUnwrap(general, "the shortcut read \(target), the router would not")
            XCTAssertEqual(Self.fields(fast), Self.fields(expected), target)
            XCTAssertNil(fast.signature, target)
            XCTAssertNil(expected.signature, target)
        }
        XCTAssertGreaterThan(taken, 25)
    }

    /// Every field of `request` but the signature, as text.
    private static func fields(_ request: PublishRequest) -> [String] {
        [request.publishKey, request.subscribeKey, request.channel, "\(request.payload)", "\(request.meta as Any)",
         "\(request.uuid as Any)", "\(request.kind)", "\(request.store as Any)", "\(request.noReplication)",
         "\(request.ttlHours as Any)", "\(request.customMessageType as Any)", "\(request.authKey as Any)"]
    }

    func testWhatClientsSendTakesTheShortcut() throws {
        let sdk = PublishTarget.request(prefix + "%7B%22text%22%3A%22%C3%A9t%C3%A9%22%7D?pnsdk=PubNub-Python%2F10.8.0"
            + "&uuid=user-1&requestid=0e5b&store=1&ttl=24&meta=%7B%22k%22%3A1%7D&custom_message_type=text-message&auth=t")
        let request = try XCTUnwrap(sdk)
        XCTAssertEqual(String(decoding: request.payload, as: UTF8.self), #"{"text":"été"}"#)
        XCTAssertEqual(request.uuid, "user-1")
        XCTAssertEqual(request.store, true)
        XCTAssertEqual(request.ttlHours, 24)
        XCTAssertEqual(request.meta.map { String(decoding: $0, as: UTF8.self) }, #"{"k":1}"#)
        XCTAssertEqual(request.customMessageType, "text-message")
        XCTAssertEqual(request.authKey, "t")
        XCTAssertEqual(PublishTarget.request("/signal/demo/demo/0/ch/0/1")?.kind, .signal)
        XCTAssertNil(PublishTarget.request(prefix + "1?signature=v2.x"))
    }

    func testTargetsLeftToTheRouterAreRefusedAsBefore() throws {
        let node = EmbeddedNode()
        let flag = try node.get(prefix + "1?store=maybe")
        XCTAssertEqual(flag.status, 400)
        XCTAssertTrue(flag.text.contains("store must be true or false"), flag.text)
        let escape = try node.get(prefix + "%ZZ")
        XCTAssertEqual(escape.status, 400)
        XCTAssertTrue(escape.text.contains("malformed percent-encoding"), escape.text)
        // Read by the shortcut, refused by the node as the router's decoding would have it refused.
        let json = try node.get(prefix + "%7Bnope")
        XCTAssertEqual(json.status, 400)
        XCTAssertEqual(try node.get(prefix + "1?uuid=u").status, 200)
    }

    func testTheMetricsPortServesNoPublish() throws {
        let metrics = EmbeddedNode(metricsListener: true)
        XCTAssertEqual(try metrics.get(prefix + "1").status, 404)
    }
}
