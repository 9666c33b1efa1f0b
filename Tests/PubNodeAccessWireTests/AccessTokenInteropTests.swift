import XCTest
@testable import PubNodeAccessWire

/// A token encoded by this module and checked by hand with the Python SDK 10.8.0:
/// `TokenManager.parse_token` returned version 2, timestamp 1700000000, ttl 60, authorized_uuid
/// "my-uuid", meta {"role": "admin", "n": -3, "f": 1.5, "l": [true, null]}, resources
/// channels {"ch1": read+write, "ch 2/é": read}, groups {"g1": read+manage}, uuids {"u1": get+update},
/// patterns channels {"^ch-.*$": read}, uuids {"^u-[0-9]+$": get+join}.
final class AccessTokenInteropTests: XCTestCase {
    let parsedByPython = "qEF2AkF0GmVT8QBDdHRsGDxDcmVzpURjaGFuomdjaCAyL8OpAWNjaDEDQ2dycKFiZzEFQ3NwY6BDdXNyoER1dWlkoWJ1MRhgQ3BhdKVEY2hhbqFnXmNoLS4qJAFDZ3JwoENzcGOgQ3VzcqBEdXVpZKFqXnUtWzAtOV0rJBigRG1ldGGkZHJvbGVlYWRtaW5hbiJhZvs_-AAAAAAAAGFsgvX2RHV1aWRnbXktdXVpZENzaWdYIKDsDgtByB4PV6OQRGmhP3OQc7zqYwb8Sopv5JanIdcq"

    func expected() -> AccessToken {
        AccessToken(
            issued: 1_700_000_000, ttlMinutes: 60,
            resources: .init(channels: ["ch1": [.read, .write], "ch 2/é": .read], groups: ["g1": [.read, .manage]],
                             uuids: ["u1": [.get, .update]]),
            patterns: .init(channels: ["^ch-.*$": .read], uuids: ["^u-[0-9]+$": [.get, .join]]),
            meta: .map([CBORPair(.text("role"), .text("admin")), CBORPair(.text("n"), .negative(-3)),
                        CBORPair(.text("f"), .double(1.5)), CBORPair(.text("l"), .array([.bool(true), .null]))]),
            authorizedUUID: "my-uuid")
    }

    func testEncodingIsStableAndMatchesTheTokenPythonParsed() throws {
        XCTAssertEqual(expected().signed(secret: "sec-c-test").encoded(), parsedByPython)
        XCTAssertEqual(parsedByPython.utf8.count % 4, 0)
    }

    func testDecodesTheTokenPythonParsed() throws {
        let token = try AccessToken.decode(parsedByPython)
        XCTAssertEqual(token.version, 2)
        XCTAssertEqual(token.issued, 1_700_000_000)
        XCTAssertEqual(token.ttlMinutes, 60)
        XCTAssertEqual(token.authorizedUUID, "my-uuid")
        XCTAssertEqual(token.resources.channels, ["ch1": [.read, .write], "ch 2/é": .read])
        XCTAssertEqual(token.resources.groups, ["g1": [.read, .manage]])
        XCTAssertEqual(token.resources.uuids, ["u1": [.get, .update]])
        XCTAssertEqual(token.patterns.channels, ["^ch-.*$": .read])
        XCTAssertEqual(token.patterns.groups, [:])
        XCTAssertEqual(token.patterns.uuids, ["^u-[0-9]+$": [.get, .join]])
        XCTAssertEqual(token.meta.jsonText(), #"{"role":"admin","n":-3,"f":1.5,"l":[true,null]}"#)
        XCTAssertTrue(token.isSigned(by: "sec-c-test"))
        XCTAssertFalse(token.isSigned(by: "sec-c-tes"))
    }
}
