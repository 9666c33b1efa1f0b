import Foundation
@testable import PubNodeClient
import XCTest

/// The crypto module against the SDKs' own vectors, and its refusals of bad input.
final class CryptoModuleTests: XCTestCase {
    private func fixedIV(_ bytes: [UInt8]) -> @Sendable () -> [UInt8] { { bytes } }

    func testLegacyStaticIVMatchesTheSDKVectors() throws {
        let module = CryptoModule.legacyCryptoModule(with: "testKey", withRandomIV: false)
        XCTAssertEqual(try module.encrypt(string: "\"hey-0\""), "QfD1NCBJCmt1aPPGU2cshw==")
        XCTAssertEqual(try module.encrypt(string: "hey-0"), "oB/HlrvkjtuO92eGg61BXg==")
        XCTAssertEqual(try module.decrypt(base64: "QfD1NCBJCmt1aPPGU2cshw=="), "\"hey-0\"")
        XCTAssertEqual(try module.decrypt(base64: "oB/HlrvkjtuO92eGg61BXg=="), "hey-0")
    }

    func testLegacyKeyIsTheFirst32HexDigitsAsASCII() {
        let cryptor = Cryptor(kind: .legacy(randomIV: false), cipherKey: "testKey")
        let key = cryptor.key.withUnsafeBytes { Array($0) }
        XCTAssertEqual(String(decoding: key, as: UTF8.self), "15291f67d99ea7bc578c3544dadfbb99")
    }

    func testLegacyRandomIVIsPrependedAndRead() throws {
        let module = CryptoModule.legacyCryptoModule(with: "testKey", withRandomIV: true)
            .withIVSource(fixedIV(Array("abcdefghijklmnop".utf8)))
        let vector = "YWJjZGVmZ2hpamtsbW5vcAU3oOTDN8dYEWgFdpS34Dg="
        XCTAssertEqual(try module.encrypt(string: "{\"hi\":\"there\"}"), vector)
        XCTAssertEqual(try module.decrypt(base64: vector), "{\"hi\":\"there\"}")
        XCTAssertEqual(try CryptoModule.aesCbcCryptoModule(with: "testKey").decrypt(base64: vector), "{\"hi\":\"there\"}",
                       "the AES-CBC module reads legacy data without a header")
    }

    func testACRHMatchesTheSDKVector() throws {
        let module = CryptoModule.aesCbcCryptoModule(with: "myCipherKey").withIVSource(fixedIV(Array(0...15)))
        let vector = "UE5FRAFBQ1JIEAABAgMEBQYHCAkKCwwNDg9VDThqVy2ohl0DlvEC9Af1"
        XCTAssertEqual(try module.encrypt(string: "{\"hi\":\"there\"}"), vector)
        XCTAssertEqual(try module.decrypt(base64: vector), "{\"hi\":\"there\"}")
        XCTAssertEqual(try CryptoModule.legacyCryptoModule(with: "myCipherKey").decrypt(base64: vector), "{\"hi\":\"there\"}",
                       "the legacy module reads ACRH data by its header")
        let header = Array(Data(base64Encoded: vector)!.prefix(26))
        XCTAssertEqual(header, Array("PNED".utf8) + [1] + Array("ACRH".utf8) + [16] + Array(0...15))
    }

    func testRandomIVsDifferAndRoundTrip() throws {
        let module = CryptoModule.aesCbcCryptoModule(with: "k")
        let first = try module.encrypt(string: "[1,2,3]")
        let second = try module.encrypt(string: "[1,2,3]")
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try module.decrypt(base64: first), "[1,2,3]")
        XCTAssertEqual(try module.decrypt(base64: second), "[1,2,3]")
    }

    func testHeaderLengthEncodings() throws {
        for count in [0, 1, 16, 254, 255, 300, 65_535] {
            let data = (0..<count).map { UInt8($0 & 0xFF) }
            let bytes = try CryptorHeader.encode(cryptorId: "ACRH", cryptorData: data)
            let prefix = count < 255 ? 10 : 12
            XCTAssertEqual(bytes.count, prefix + count)
            if count >= 255 { XCTAssertEqual(Array(bytes[9..<12]), [0xFF, UInt8(count >> 8), UInt8(count & 0xFF)]) }
            let header = try XCTUnwrap(try CryptorHeader.decode(bytes + [9, 9]))
            XCTAssertEqual(header, CryptorHeader(cryptorId: "ACRH", cryptorData: data, length: prefix + count))
        }
        XCTAssertThrowsError(try CryptorHeader.encode(cryptorId: "ACRH", cryptorData: Array(repeating: 0, count: 65_536)))
        XCTAssertThrowsError(try CryptorHeader.encode(cryptorId: "ACR", cryptorData: []))
    }

    func testHeaderVectorsOfTheSDKTests() throws {
        let id = Array("PNED".utf8) + [1] + Array("ACRH".utf8)
        XCTAssertEqual(try CryptorHeader.decode(id + [0])?.length, 10)
        XCTAssertEqual(try CryptorHeader.decode(id + [1, 7])?.cryptorData, [7])
        let long = try XCTUnwrap(try CryptorHeader.decode(id + [0xFF, 0x00, 0xFF] + Array(repeating: 3, count: 255)))
        XCTAssertEqual(long.length, 12 + 255)
        XCTAssertNil(try CryptorHeader.decode(Array("PNEX".utf8) + [1]), "no sentinel: legacy data")
        XCTAssertNil(try CryptorHeader.decode([]))
    }

    func testTruncatedAndNewerHeadersAreRefused() {
        let id = Array("PNED".utf8) + [1] + Array("ACRH".utf8)
        for bytes in [Array("PNED".utf8), Array(id.prefix(7)), id, id + [5, 1, 2], id + [0xFF], id + [0xFF, 0x01],
                      id + [0xFF, 0x01, 0x00] + [1, 2]] {
            XCTAssertThrowsError(try CryptorHeader.decode(bytes), "\(bytes)")
        }
        XCTAssertThrowsError(try CryptorHeader.decode(Array("PNED".utf8) + [2] + Array("ACRH".utf8) + [0]))
    }

    func testWrongKeyGarbageAndTruncationAreErrorsNotCrashes() throws {
        let acrh = "UE5FRAFBQ1JIEAABAgMEBQYHCAkKCwwNDg9VDThqVy2ohl0DlvEC9Af1"
        let legacy = "QfD1NCBJCmt1aPPGU2cshw=="
        let wrong = CryptoModule.aesCbcCryptoModule(with: "not the key")
        for text in [acrh, legacy] {
            XCTAssertThrowsError(try wrong.decrypt(base64: text)) { error in
                guard case .crypto = error as? PubNodeClientError else { return XCTFail("\(error)") }
            }
        }
        let module = CryptoModule.aesCbcCryptoModule(with: "myCipherKey", withRandomIV: false)
        let garbage = ["", "AAAA", "not base64 at all!", "UE5FRA==", "UE5FRAFBQ1JIEAABAgMEBQYHCAkKCwwNDg8=",
                       String(acrh.dropLast(8)), "UE5FRAJBQ1JIEAABAgMEBQYHCAkKCwwNDg9VDThqVy2ohl0DlvEC9Af1",
                       "UE5FRAFYWVpXEAABAgMEBQYHCAkKCwwNDg9VDThqVy2ohl0DlvEC9Af1"]
        for text in garbage {
            XCTAssertThrowsError(try module.decrypt(base64: text), text) { error in
                guard case .crypto = error as? PubNodeClientError else { return XCTFail("\(text): \(error)") }
            }
        }
        XCTAssertThrowsError(try module.encrypt(string: ""))
        XCTAssertThrowsError(try CryptoModule.legacyCryptoModule(with: "k").decrypt(data: Data(repeating: 1, count: 16)),
                             "a random-IV legacy payload needs more than the IV")
    }

    func testPayloadsAreJSONStringsOfBase64() throws {
        let module = CryptoModule.legacyCryptoModule(with: "testKey", withRandomIV: false)
        let wire = try module.encryptPayload(Data("\"hey-0\"".utf8))
        XCTAssertEqual(String(decoding: wire, as: UTF8.self), "\"QfD1NCBJCmt1aPPGU2cshw==\"")
        XCTAssertEqual(try module.decryptPayload("QfD1NCBJCmt1aPPGU2cshw=="), "hey-0")
        XCTAssertEqual(try module.decryptPayload("oB/HlrvkjtuO92eGg61BXg=="), "hey-0", "plaintext that is not JSON stays a string")
        XCTAssertThrowsError(try module.decryptPayload(["hi": "there"]))
        XCTAssertThrowsError(try module.decryptPayload("plain text"))
    }

    func testModulesCompareByCryptorAndKeyNeverPrintTheKey() {
        XCTAssertEqual(CryptoModule.aesCbcCryptoModule(with: "a"), CryptoModule.aesCbcCryptoModule(with: "a"))
        XCTAssertNotEqual(CryptoModule.aesCbcCryptoModule(with: "a"), CryptoModule.aesCbcCryptoModule(with: "b"))
        XCTAssertNotEqual(CryptoModule.aesCbcCryptoModule(with: "a"), CryptoModule.legacyCryptoModule(with: "a"))
        XCTAssertFalse(String(describing: CryptoModule.aesCbcCryptoModule(with: "secret-key")).contains("secret"))
    }
}
