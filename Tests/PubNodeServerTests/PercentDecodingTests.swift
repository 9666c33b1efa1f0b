@testable import PubNodeServer
import XCTest

/// Percent-decoding of target components, as text (`decode`) and as payload bytes (`decodeBytes`):
/// the two agree on what they refuse, and the bytes hold exactly what was escaped.
final class PercentDecodingTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8]? {
        Array(text.utf8).withUnsafeBytes { PercentDecoding.decodeBytes($0) }
    }

    private func string(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { PercentDecoding.decode($0) }
    }

    func testEscapesAreUndoneAndTheResultTrimmedToWhatWasWritten() {
        XCTAssertEqual(bytes("%22hi%22"), Array("\"hi\"".utf8))
        XCTAssertEqual(bytes("plain"), Array("plain".utf8))
        XCTAssertEqual(bytes(""), [])
        XCTAssertEqual(bytes("%7B%22a%22%3A1%7D"), Array("{\"a\":1}".utf8))
        XCTAssertEqual(bytes("a+b%20c"), Array("a+b c".utf8))
        XCTAssertEqual(bytes("%C3%BC"), Array("ü".utf8))
    }

    func testMalformedEscapesAndNonUTF8AreRefusedAsTheTextReadingRefusesThem() {
        for target in ["%", "%2", "%zz", "ab%2", "%C3", "%FF%FE", "x%C3%28"] {
            XCTAssertNil(bytes(target), target)
            XCTAssertNil(string(target), target)
        }
        for target in ["%41", "%c3%bc", "100%25"] {
            XCTAssertEqual(bytes(target).map { String(decoding: $0, as: UTF8.self) }, string(target), target)
        }
    }
}
