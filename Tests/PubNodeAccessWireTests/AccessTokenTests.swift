import XCTest
@testable import PubNodeAccessWire

final class AccessTokenTests: XCTestCase {
    /// From PubNub's JS and Swift SDK test fixtures (notes §2.3).
    let reference = "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNyoENzcGOgRHV1aWShZnV1aWQtMRhoQ3BhdKVEY2hhbqFtXmNoYW5uZWwtXFMqJBjvQ2dycKF0XjpjaGFubmVsX2dyb3VwLVxTKiQFQ3VzcqBDc3BjoER1dWlkoWpedXVpZC1cUyokGGhEbWV0YaBEdXVpZHR0ZXN0LWF1dGhvcml6ZWQtdXVpZENzaWdYIPpU-vCe9rkpYs87YUrFNWkyNq8CVvmKwEjVinnDrJJc"

    func sample() -> AccessToken {
        AccessToken(
            issued: 1_700_000_000, ttlMinutes: 60,
            resources: .init(channels: ["ch1": [.read, .write], "ch 2/é": .read], groups: ["g1": [.read, .manage]],
                             uuids: ["u1": [.get, .update]]),
            patterns: .init(channels: ["^ch-.*$": .read]),
            meta: .map([CBORPair(.text("role"), .text("admin")), CBORPair(.text("n"), .negative(-3))]),
            authorizedUUID: "my-uuid")
    }

    func testReferenceTokenDecodes() throws {
        let token = try AccessToken.decode(reference)
        XCTAssertEqual(token.version, 2)
        XCTAssertEqual(token.issued, 1_627_968_380)
        XCTAssertEqual(token.ttlMinutes, 60)
        XCTAssertEqual(token.expiresAt, 1_627_968_380 + 3600)
        XCTAssertEqual(token.resources.channels, ["channel-1": AccessPermissions(rawValue: 239)])
        XCTAssertEqual(token.resources.groups, ["channel_group-1": [.read, .manage]])
        XCTAssertEqual(token.resources.uuids, ["uuid-1": [.delete, .get, .update]])
        XCTAssertEqual(token.patterns.channels, [#"^channel-\S*$"#: AccessPermissions(rawValue: 239)])
        XCTAssertEqual(token.patterns.groups, [#"^:channel_group-\S*$"#: AccessPermissions(rawValue: 5)])
        XCTAssertEqual(token.patterns.uuids, [#"^uuid-\S*$"#: AccessPermissions(rawValue: 104)])
        XCTAssertEqual(token.meta, .map([]))
        XCTAssertEqual(token.authorizedUUID, "test-authorized-uuid")
        XCTAssertEqual(token.signature.count, 32)
        XCTAssertEqual(token.signature.prefix(4), [0xfa, 0x54, 0xfa, 0xf0])
        XCTAssertEqual(AccessPermissions(rawValue: 239), [.read, .write, .manage, .delete, .get, .update, .join])
        // Re-encoding keeps every field. (This fixture writes usr before spc; we write chan, grp,
        // spc, usr, uuid, so the bytes differ there.)
        let again = token.encoded()
        XCTAssertEqual(again.utf8.count % 4, 0)
        XCTAssertEqual(try AccessToken.decode(again), token)
    }

    func testAlternativeSpellingsDecode() throws {
        let expected = try AccessToken.decode(reference)
        let standard = reference.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        XCTAssertEqual(try AccessToken.decode(standard), expected)
        let encoded = sample().signed(secret: "s").encoded()
        XCTAssertTrue(encoded.hasSuffix("="), "this sample needs padding; pick one that does")
        XCTAssertEqual(try AccessToken.decode(encoded.replacingOccurrences(of: "=", with: "%3D")),
                       try AccessToken.decode(encoded))
        XCTAssertEqual(try AccessToken.decode(encoded.replacingOccurrences(of: "=", with: "%3d")),
                       try AccessToken.decode(encoded))
        XCTAssertEqual(try AccessToken.decode(encoded.replacingOccurrences(of: "=", with: "")),
                       try AccessToken.decode(encoded))
    }

    func testRoundTripAndPadding() throws {
        let token = sample().signed(secret: "sec-c-test")
        let text = token.encoded()
        XCTAssertEqual(text.utf8.count % 4, 0)
        XCTAssertFalse(text.contains("+") || text.contains("/"))
        XCTAssertEqual(try AccessToken.decode(text), token)
        var unrestricted = sample()
        unrestricted.authorizedUUID = nil
        let decoded = try AccessToken.decode(unrestricted.encoded())
        XCTAssertNil(decoded.authorizedUUID)
        XCTAssertEqual(decoded, unrestricted)
        XCTAssertEqual(Base64.decode(unrestricted.encoded().utf8)?.first, 0xa7, "map(7) without uuid")
        XCTAssertEqual(Base64.decode(text.utf8)?.first, 0xa8, "map(8) with uuid")
    }

    func testSigning() throws {
        let token = sample()
        XCTAssertTrue(token.signature.isEmpty)
        XCTAssertFalse(token.isSigned(by: "sec-c-test"))
        let signed = token.signed(secret: "sec-c-test")
        XCTAssertEqual(signed.signature.count, 32)
        XCTAssertTrue(signed.isSigned(by: "sec-c-test"))
        XCTAssertFalse(signed.isSigned(by: "sec-c-tesT"))
        let decoded = try AccessToken.decode(signed.encoded())
        XCTAssertTrue(decoded.isSigned(by: "sec-c-test"))
        var tampered = decoded
        tampered.ttlMinutes += 1
        XCTAssertFalse(tampered.isSigned(by: "sec-c-test"))
        tampered = decoded
        tampered.resources.channels["ch1"] = [.read, .write, .manage]
        XCTAssertFalse(tampered.isSigned(by: "sec-c-test"))
        tampered = decoded
        tampered.authorizedUUID = nil
        XCTAssertFalse(tampered.isSigned(by: "sec-c-test"))
        // Signature = HMAC over the unsigned map, checked independently of `signed`.
        let content = CBORValue.map(token.unsignedEntries()).encoded()
        XCTAssertEqual(signed.signature, RequestSignature.hmac(secret: "sec-c-test", content))
        XCTAssertEqual(content.first, 0xa7, "seven entries before sig")
    }

    func testRejectsBadInput() {
        func error(_ text: String) -> AccessTokenError? {
            do { _ = try AccessToken.decode(text); return nil } catch { return error }
        }
        XCTAssertEqual(error(""), .invalidBase64)
        XCTAssertEqual(error("qEF2A=kF0"), .invalidBase64)
        XCTAssertEqual(error("qEF2A"), .invalidBase64, "a lone trailing sextet")
        XCTAssertEqual(error("qEF2AkF0==="), .invalidBase64)
        XCTAssertEqual(error("qE F2"), .invalidBase64)
        XCTAssertEqual(error(String(repeating: "A", count: 1 << 20)), .tooLong)
        XCTAssertEqual(error("oA=="), .missingField("v"))  // empty map
        XCTAssertEqual(error("AQ=="), .notAMap)
        XCTAssertEqual(error(reference + "AA"), .invalidCBOR(.trailingBytes))
        // Every truncation is a typed error.
        let bytes = Base64.decode(reference.utf8)!
        for length in 0..<bytes.count {
            let text = Base64.encode(Array(bytes.prefix(length)), urlSafe: true, padded: true)
            XCTAssertNotNil(error(text), "prefix of \(length) bytes")
        }
        // Version 3.
        var wrongVersion = bytes
        XCTAssertEqual(wrongVersion[3], 0x02)
        wrongVersion[3] = 0x03
        XCTAssertEqual(error(Base64.encode(wrongVersion, urlSafe: true, padded: true)), .unsupportedVersion(3))
        // Field of the wrong type: ttl as text.
        var entries = sample().unsignedEntries()
        entries[2].value = .text("60")
        entries.append(CBORPair(AccessToken.key("sig"), .bytes([])))
        XCTAssertEqual(error(Base64.encode(CBORValue.map(entries).encoded(), urlSafe: true, padded: true)),
                       .invalidField("ttl"))
        entries[2].value = .unsigned(60)
        entries[5].value = .array([])
        XCTAssertEqual(error(Base64.encode(CBORValue.map(entries).encoded(), urlSafe: true, padded: true)),
                       .invalidField("meta"))
        entries[5].value = .map([])
        entries.append(CBORPair(.text("v"), .unsigned(2)))
        XCTAssertEqual(error(Base64.encode(CBORValue.map(entries).encoded(), urlSafe: true, padded: true)),
                       .duplicateKey("token"))
    }

    func testIgnoresCategoriesAndLegacyKinds() throws {
        var entries = sample().unsignedEntries()
        entries.append(CBORPair(AccessToken.key("cat"), .map([CBORPair(.text("chan"), .unsigned(32))])))
        entries.append(CBORPair(AccessToken.key("sig"), .bytes(Array(repeating: 7, count: 32))))
        let token = try AccessToken.decode(Base64.encode(CBORValue.map(entries).encoded(), urlSafe: true, padded: true))
        XCTAssertEqual(token.resources, sample().resources)
        XCTAssertEqual(token.signature, Array(repeating: 7, count: 32))
    }

    func testSeededGarbageNeverTraps() {
        var generator = SplitMix64(seed: 0x5eed)
        let valid = Base64.decode(sample().signed(secret: "k").encoded().utf8)!
        for round in 0..<4000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                bytes = valid
                for _ in 0...(generator.next() % 4) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            let text = Base64.encode(bytes, urlSafe: round % 3 != 0, padded: round % 5 != 0)
            _ = try? AccessToken.decode(text)
            _ = try? CBORValue.decode(bytes)
            _ = try? CBORValue(json: bytes)
            _ = try? AccessToken.decode(String(decoding: bytes, as: UTF8.self))
        }
    }
}

/// A small deterministic generator for fuzz-style tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
